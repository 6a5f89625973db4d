# bash completion for iolab: commands, options, and lesson/step ids from `iolab list --json`.
_iolab_ids()
{
    iolab list --json 2>/dev/null | grep -o '"id":"[a-z0-9_-]*/[a-z0-9_-]*"' | cut -d'"' -f4
}

_iolab()
{
    local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "run bench list lint progress check new starter --pack --tick-hz --open --help --version" -- "$cur"))
        return
    fi
    case "$cmd" in
    run) COMPREPLY=($(compgen -W "$(_iolab_ids) --mode --seconds --json --pack --tier --help" -- "$cur")) ;;
    bench) COMPREPLY=($(compgen -W "$(_iolab_ids) --mode --repeat --seconds --json --csv --pack --tier --help" -- "$cur")) ;;
    list) COMPREPLY=($(compgen -W "--pack --json --help" -- "$cur")) ;;
    lint) COMPREPLY=($(compgen -d -- "$cur")) ;;
    progress)
        case "$cur" in
        -*) COMPREPLY=($(compgen -W "--json --reset --yes --pack --export --import --learner --summary --csv --help" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
        esac
        ;;
    check) COMPREPLY=($(compgen -W "$(_iolab_ids) --pack --dir --seconds --json --junit --solutions --help" -- "$cur")) ;;
    starter) COMPREPLY=($(compgen -W "$(_iolab_ids) --pack --out --help" -- "$cur")) ;;
    new) COMPREPLY=($(compgen -d -W "--id --title --help" -- "$cur")) ;;
    --pack) COMPREPLY=($(compgen -d -- "$cur")) ;;
    esac
}
complete -F _iolab iolab
