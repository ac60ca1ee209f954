# SPDX-License-Identifier: GPL-2.0-or-later
#
# row_opts ROW: the locality-replay options that replay one of
# locality-advise's rows, named "STRATEGY[+MODE] [cw=S] [ct=X] [pw=W]
# [hold=H]". Sourced by the advice checks; calls their fail().
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
