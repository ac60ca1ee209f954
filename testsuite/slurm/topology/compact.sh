# SPDX-License-Identifier: GPL-2.0-or-later
#
# topology/compact.sh - topology-tests.sh's CompactWait case, sourced by it
# (its conf_for, start_mode and the lib.sh helpers): lib.sh's
# compact_scenario (run-tests.sh's case h) under topology/locality, each
# job --exclusive, in the per-row shape with CompactWait=$TC_WAIT, and
# backfill with bf_busy_nodes (SHAPE_CONF), whose future states run
# Slurm's busy-first helper inside this plugin; then a job in a
# reservation of scattered nodes, which must not wait.

TC_WAIT=25

compact_wait() {
	local CLUSTER_DEBUG=debug # the "waits for a compact placement" line
	MODE=locality
	export CLUSTER_SHAPE=per-row
	LCONF=$RUNROOT/locality-compact.conf
	conf_for per-row "$LCONF"
	echo "CompactWait=$TC_WAIT" >>"$LCONF"
	start_mode locality compact || return 1
	compact_scenario "$TC_WAIT" --exclusive
	result "compact: CompactWait: a job waits for a compact set and takes it when it frees up" "$CW_WAIT"
	result "compact: CompactWait: the nodes a waiting job declines are backfilled" "$CW_FILL"
	result "compact: CompactWait: a job takes the best set there is at its deadline" "$CW_DEAD"
	compact_in_reservation "$TC_WAIT" --exclusive
	result "compact: CompactWait: a job in a reservation waits for no set outside it" "$CW_RESV"
	stop_cluster
}
