#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Reproduces the seed papers' experiments with locality-replay, side by
# side, and writes Markdown tables to OUT/tables.md (doc/experiments.md
# quotes them). Long: run it by hand, not from `make check`.
#
#   (a) seed 003 (Bender et al., WADS 2005), Table 1: average total
#       pairwise distance of MC1x1, MM, MM+Inc and HilbertBF, each as the
#       "situation" algorithm that places the jobs and as the "decision"
#       algorithm asked on the same free nodes; 2-D meshes.
#   (b) seed 004 (Tang et al., IPDPS 2011): Base, SL, PF, Combo, AdjEst
#       (and ActRun) with contiguous boxes on the 5x4x4 midplane torus of
#       ANL Intrepid, FCFS and WFP, both with EASY backfilling: loss of
#       capacity, wait, bounded slowdown.
#
# usage: testsuite/replay/experiments.sh [OUT]   (from the build directory)
#   environment: LOCALITY_REPLAY (binary), TRACES (trace directory),
#                JOBS (rows in parallel, default 2), ONLY=a|b
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=${LOCALITY_REPLAY:-./src/replay/locality-replay}
traces=${TRACES:-$top/../shared/traces}
jobs=${JOBS:-2}
out=${1:-experiments-out}
only=${ONLY:-ab}

if [ ! -x "$bin" ]; then
	echo "experiments: $bin not built (run from the build directory)" >&2
	exit 1
fi
if [ ! -d "$traces" ]; then
	echo "experiments: $traces is absent" >&2
	exit 77
fi
mkdir -p "$out"
md=$out/tables.md
: > "$md"

# num FILE ROW KEY: a number of row ROW in summary.json FILE
num() {
	awk -v row="\"$2\": {" -v key="\"$3\":" '
		index($0, row) == 5 { f = 1 }
		f && index($0, key) { v = $2; gsub(/,/, "", v); print v; exit }' "$1"
}

# dec FILE ROW DECISION: the decision allocator's mean total pair hops
dec() {
	awk -v row="\"$2\": {" -v key="\"$3\":" '
		index($0, row) == 5 { f = 1 }
		f && /decision_mean_total_pair_hops/ { g = 1; next }
		f && g && index($0, key) { v = $2; gsub(/,/, "", v); print v; exit }
		f && g && /}/ { exit }' "$1"
}

wl() {
	awk -v key="\"$2\":" 'index($0, key) { v = $2; gsub(/,/, "", v); print v; exit }' "$1"
}

# replay NAME OPTIONS...: one locality-replay run into OUT/NAME
replay() {
	r_name=$1
	shift
	r_start=$(date +%s)
	"$bin" "$@" --out "$out/$r_name" -j "$jobs" --no-progress --snapshots 2 \
		> "$out/$r_name.table" 2> "$out/$r_name.log"
	r_end=$(date +%s)
	echo "$r_name: $((r_end - r_start)) s" | tee -a "$out/timings.txt"
}

# ----------------------------------------------------------------------
# (a) seed 003, Table 1
# ----------------------------------------------------------------------
a_case() {
	name=$1
	title=$2
	shift 2
	replay "$name" -s mc1x1,mm,mm_inc,bestfit/hilbert \
		--decision mc1x1,mm,mm_inc,bestfit --curve hilbert \
		--sched fcfs "$@"
	s=$out/$name/summary.json
	{
		echo "### $title"
		echo
		echo "$(num "$s" mc1x1 jobs) jobs, offered load $(wl "$s" offered_load); machine $(awk -F'"' '/"shape"/ {print $4}' "$s"). Mean total pairwise hops per job; rows: situation algorithm (places the jobs), columns: decision algorithm (asked on the same free nodes). Diagonal = the situation algorithm's own choices."
		echo
		echo "| situation \\\\ decision | MC1x1 | MM | MM+Inc | HilbertBF | wait (s) | util |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		for r in mc1x1:MC1x1 mm:MM mm_inc:MM+Inc bestfit/hilbert:HilbertBF; do
			row=${r%%:*}
			label=${r#*:}
			printf '| %s | %.1f | %.1f | %.1f | %.1f | %.0f | %.3f |\n' "$label" \
				"$(dec "$s" "$row" mc1x1)" "$(dec "$s" "$row" mm)" \
				"$(dec "$s" "$row" mm_inc)" "$(dec "$s" "$row" bestfit)" \
				"$(num "$s" "$row" mean_wait_s)" \
				"$(num "$s" "$row" utilization)"
		done
		echo
	} >> "$md"
}

if [ "${only#*a}" != "$only" ]; then
	echo "## (a) Seed 003, Table 1" >> "$md"
	echo >> "$md"
	# the paper's own scaling of the NASA trace: processors / 4, 32 nodes
	a_case a1-nasa-32 "NASA iPSC/860, processors / 4 (as seed 003), 8x4 mesh" \
		-t "$traces/NASA-iPSC-1993-3.1-cln.swf.gz" --grid 8x4 \
		--procs-per-node 4
	# the paper's 16x16 mesh: the 128-node trace doubled to fill it
	a_case a2-nasa-256 "NASA iPSC/860, processors x 2, 16x16 mesh" \
		-t "$traces/NASA-iPSC-1993-3.1-cln.swf.gz" --grid 16x16 \
		--procs-per-node 0.5
	a_case a3-sdsc-256 "SDSC Paragon (a 2-D mesh machine), scaled to 256 nodes, 16x16 mesh" \
		-t "$traces/SDSC-Par-1996-3.1-cln.swf.gz" --grid 16x16 \
		--scale-to 256
	a_case a4-ross-256 "Sandia Ross (Cplant), scaled to 256 nodes, 16x16 mesh" \
		-t "$traces/Sandia-Ross-2001-1.1-cln.swf.gz" --grid 16x16 \
		--scale-to 256
fi

# ----------------------------------------------------------------------
# (b) seed 004, Table II and Figures 6-8
# ----------------------------------------------------------------------
b_case() {
	name=$1
	title=$2
	shift 2
	for prio in fcfs wfp; do
		replay "$name-$prio" -s box -w none,sl,pf,combo,adjest,actrun \
			--grid 5x4x4 --torus yes --scale-to 80 --round box \
			--pf-max-nodes 1 --sched easy --priority $prio "$@"
	done
	f=$out/$name-fcfs/summary.json
	w=$out/$name-wfp/summary.json
	{
		echo "### $title"
		echo
		echo "$(num "$f" box jobs) jobs, offered load $(wl "$f" offered_load) on 80 units; $(num "$f" box rejected_no_fit) jobs with no box. Wait in minutes; gain = (Base - scheme) / Base, as the paper's Figures 6-8."
		echo
		echo "| scheme | FCFS LoC | gain | FCFS wait | gain | FCFS BSD | gain | WFP LoC | gain | WFP wait | gain | WFP BSD | gain | PF pairs (F/W) |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for r in box:Base box+sl:SL box+pf:PF box+combo:Combo \
			box+adjest:AdjEst box+actrun:ActRun; do
			row=${r%%:*}
			label=${r#*:}
			awk -v label="$label" \
				-v fl="$(num "$f" "$row" loss_of_capacity)" -v fl0="$(num "$f" box loss_of_capacity)" \
				-v fw="$(num "$f" "$row" mean_wait_s)" -v fw0="$(num "$f" box mean_wait_s)" \
				-v fb="$(num "$f" "$row" mean_bsd)" -v fb0="$(num "$f" box mean_bsd)" \
				-v wl="$(num "$w" "$row" loss_of_capacity)" -v wl0="$(num "$w" box loss_of_capacity)" \
				-v ww="$(num "$w" "$row" mean_wait_s)" -v ww0="$(num "$w" box mean_wait_s)" \
				-v wb="$(num "$w" "$row" mean_bsd)" -v wb0="$(num "$w" box mean_bsd)" \
				-v pf="$(num "$f" "$row" pf_pairs)" -v pw="$(num "$w" "$row" pf_pairs)" '
				function g(v, b) { return b > 0 ? sprintf("%+.0f%%", 100 * (b - v) / b) : "-" }
				BEGIN {
					printf "| %s | %.3f | %s | %.1f | %s | %.2f | %s | %.3f | %s | %.1f | %s | %.2f | %s | %d/%d |\n",
						label, fl, g(fl, fl0), fw / 60, g(fw, fw0), fb, g(fb, fb0),
						wl, g(wl, wl0), ww / 60, g(ww, ww0), wb, g(wb, wb0), pf, pw
				}'
		done
		echo
	} >> "$md"
}

if [ "${only#*b}" != "$only" ]; then
	echo "## (b) Seed 004: walltime-aware allocation on a 5x4x4 torus" >> "$md"
	echo >> "$md"
	b_case b1-intrepid-1200 "ANL Intrepid 2009, first 1,200 jobs (the seed's own machine)" \
		-t "$traces/ANL-Intrepid-2009-first1200.swf.gz"
	b_case b2-intrepid-237 "ANL Intrepid 2009, 237 consecutive jobs" \
		-t "$traces/ANL-Intrepid-2009-slice237.swf.gz"
	b_case b3-theta "ALCF Theta 2022 (4,360 nodes to 80 units)" \
		-t "$traces/ALCF-Theta-2022.swf.gz"
	b_case b4-kth "KTH SP2 1996 (100 nodes to 80 units)" \
		-t "$traces/KTH-SP2-1996-2.1-cln.swf.gz"
	b_case b5-sdsc "SDSC Paragon 1996 (400 nodes to 80 units)" \
		-t "$traces/SDSC-Par-1996-3.1-cln.swf.gz"
	b_case b6-atlas "LLNL Atlas 2006 (1,152 nodes to 80 units)" \
		-t "$traces/LLNL-Atlas-2006-2.1-cln.swf.gz"
	b_case b7-ross "Sandia Ross 2001 (1,524 nodes to 80 units)" \
		-t "$traces/Sandia-Ross-2001-1.1-cln.swf.gz"
fi

echo "tables: $md"
