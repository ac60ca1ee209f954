# SPDX-License-Identifier: GPL-2.0-or-later
#
# advise-helpers.sh - what the advice checks recompute with
# locality-replay and awk. Sourced by check-advise.sh and
# check-advise-validate.sh; calls their fail().

# row_opts ROW: the locality-replay options that replay one of
# locality-advise's rows, named "STRATEGY[+MODE] [cw=S] [ct=X] [pw=W]
# [hold=H]".
row_opts() {
	set -- $1
	case $1 in *+*) echo "-s ${1%+*} -w ${1#*+}" ;; *) echo "-s $1 -w none" ;; esac
	shift
	for kv in "$@"; do
		case $kv in
		cw=*) echo "--compact-wait ${kv#*=}" ;;
		ct=*) echo "--compact-tolerance ${kv#*=}" ;;
		pw=*) echo "--plan-window ${kv#*=}" ;;
		hold=*) echo "--plan-hold ${kv#*=}" ;;
		*) fail "row_opts: unknown key '$kv'" ;;
		esac
	done
}

# draw_ratios ROWDIR CURDIR [JOBS]: "HOPS_X WAIT_X", a row's mean hops
# and mean wait over the current's, from the per-job CSVs of two
# locality-replay runs, on the jobs the current ran (those of them listed
# in the file JOBS, one id per line, when given) - the advice's basis
draw_ratios() {
	awk -F, -v jobs="${3:-}" '
		BEGIN { if (jobs != "") while ((getline id < jobs) > 0) keep[id] = 1 }
		FNR == 1 { f++; next }
		f == 1 { rh[$1] = $7; rw[$1] = $3 - $2; next }
		jobs == "" || ($1 in keep) { a += rh[$1]; b += $7; c += rw[$1]; d += $3 - $2 }
		END { print a / b, c / d }' "$1"/*.csv "$2"/*.csv
}

# draw_spread: reads "HOPS_X WAIT_X" lines (one per draw) and prints the
# least, median and greatest of each, "HMIN HMED HMAX WMIN WMED WMAX";
# the median of an even count is the mean of the middle two, as the
# advice's (rp_noise_fold)
draw_spread() {
	awk '{ h[NR] = $1; w[NR] = $2 }
	function stats(x, n,   i, j, t, m) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		return x[1] " " m " " x[n]
	}
	END { print stats(h, NR), stats(w, NR) }'
}
