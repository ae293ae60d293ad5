# bash completion for energyctl(1)
_energyctl() {
  local cur prev words cword
  _init_completion 2>/dev/null || {
    cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"
    words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
  }
  case "$prev" in
    --socket | --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "csv json" -- "$cur")); return ;;
    --since | --until) COMPREPLY=($(compgen -W "now -15m -1h -1d" -- "$cur")); return ;;
    --state) COMPREPLY=($(compgen -W "open stopped interrupted" -- "$cur")); return ;;
    --duration | --baseline) COMPREPLY=($(compgen -W "10s 30s 1m" -- "$cur")); return ;;
    --timeout | --connect-timeout) COMPREPLY=($(compgen -W "5s 10s 30s 1m" -- "$cur")); return ;;
    --interval) COMPREPLY=($(compgen -W "500ms 1s 2s" -- "$cur")); return ;;
    --cpu | --gpu | --emc) COMPREPLY=($(compgen -W "min max" -- "$cur")); return ;;
  esac
  local i command="" sub=""
  for ((i = 1; i < cword; i++)); do
    case "${words[i]}" in
      --socket | --timeout | --connect-timeout) ((i++)) ;;
      -*) ;;
      *) if [[ -z "$command" ]]; then command="${words[i]}"; elif [[ -z "$sub" ]]; then sub="${words[i]}"; fi ;;
    esac
  done
  case "$command" in
    "") COMPREPLY=($(compgen -W "status rails clocks mark run runs show compare export baseline live pin unpin --socket --json --timeout --connect-timeout --help --version" -- "$cur")) ;;
    mark)
      if [[ -z "$sub" ]]; then COMPREPLY=($(compgen -W "start stop" -- "$cur"))
      elif [[ "$sub" == start ]]; then COMPREPLY=($(compgen -W "--tag" -- "$cur")); fi ;;
    export) COMPREPLY=($(compgen -W "--since --until --rail --format --csv --json" -- "$cur")) ;;
    run) COMPREPLY=($(compgen -W "--name --tag --repeat --items --output --baseline --" -- "$cur")) ;;
    runs) COMPREPLY=($(compgen -W "--name --tag --since --until --state --limit --json" -- "$cur")) ;;
    show | compare) COMPREPLY=($(compgen -W "--json" -- "$cur")) ;;
    baseline) COMPREPLY=($(compgen -W "--duration --name --show --json" -- "$cur")) ;;
    live) COMPREPLY=($(compgen -W "--interval --count --json" -- "$cur")) ;;
    pin) COMPREPLY=($(compgen -W "--cpu --gpu --emc --domain --governor --allow-offline-cpus --for --run --hold" -- "$cur")) ;;
    unpin) COMPREPLY=($(compgen -W "--all" -- "$cur")) ;;
  esac
}
complete -F _energyctl energyctl
