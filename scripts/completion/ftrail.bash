# bash completion for ftrail.  Installed by `make install` as
# $PREFIX/share/bash-completion/completions/ftrail.
#
# Everything is asked of the ftrail being completed, so it never goes stale:
# commands from `ftrail help`, options from `ftrail CMD --help`, tracers,
# trace options and kernel events from `ftrail list` (events need a
# readable tracefs; without one, -e completes nothing).

_ftrail_opts() { # ftrail cmd -> the option names its --help lists
	"$1" "$2" --help 2>/dev/null |
		sed -n 's/^  \{1,4\}\(-[-a-zA-Z0-9]*\)\(, \(--[-a-z0-9]*\)\)\{0,1\}.*/\1 \3/p' |
		sed 's/\[=.*//'
}

_ftrail()
{
	local cur prev cword words
	if declare -F _init_completion >/dev/null; then
		_init_completion -n : || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local ftrail=${words[0]} cmd=${words[1]} i list=
	COMPREPLY=()

	if [ "$cword" -eq 1 ]; then
		list=$("$ftrail" help 2>/dev/null | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p')
		COMPREPLY=($(compgen -W "$list" -- "$cur"))
		return 0
	fi
	# after "--" comes the program to trace and its own arguments
	for ((i = 2; i < cword; i++)); do
		if [ "${words[i]}" = -- ]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			else
				COMPREPLY=($(compgen -c -- "$cur"))
			fi
			return 0
		fi
	done
	case $cmd:$prev in
	help:*)
		[ "$cword" -eq 2 ] &&
			COMPREPLY=($(compgen -W "$("$ftrail" help 2>/dev/null |
				sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p')" -- "$cur"))
		return 0 ;;
	record:-p)
		COMPREPLY=($(compgen -W "$("$ftrail" list -t 2>/dev/null)" -- "$cur"))
		return 0 ;;
	*:-O)
		list=$("$ftrail" list -o 2>/dev/null | sed 's/^no//')
		COMPREPLY=($(compgen -W "$list $(printf 'no%s ' $list)" -- "$cur"))
		return 0 ;;
	*:-e)
		list=$("$ftrail" list -e 2>/dev/null)
		COMPREPLY=($(compgen -W "all $list $(printf '%s\n' $list | sed 's/:.*//' | sort -u)" -- "$cur"))
		declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
		return 0 ;;
	*:-o | *:-i | *:--from-folded)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_ftrail_opts "$ftrail" "$cmd")" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
	return 0
}
complete -F _ftrail ftrail
