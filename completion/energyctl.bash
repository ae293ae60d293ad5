# bash completion for energyctl(1)
# The commands and options below are energyctl's command table
# (cli/src/command_table.cpp); tests/cli/command_table_test.cpp checks that
# they match it exactly.
_energyctl_commands="status rails clocks mark run runs show compare export plot baseline sweeps sweep live pin unpin help"
_energyctl_global_options="--socket --json --timeout --connect-timeout --help --version"

# A command's options (its own, then the common --json and --help).
_energyctl_options() {
  case "$1" in
    status) echo "--json --help" ;;
    rails) echo "--json --help" ;;
    clocks) echo "--json --help" ;;
    mark) echo "--tag --items --pid --min-coverage --max-gap --exclusive --json --help" ;;
    run) echo "--name --tag --repeat --items --output --baseline --cpu --gpu --emc --domain --governor --allow-offline-cpus --min-coverage --max-gap --exclusive --json --help" ;;
    runs) echo "--name --tag --since --until --state --limit --json --help" ;;
    show) echo "--json --help" ;;
    compare) echo "--by --name --tag --limit --json --help" ;;
    export) echo "--since --until --rail --format --csv --json --help" ;;
    plot) echo "--out --json --help" ;;
    baseline) echo "--duration --name --show --json --help" ;;
    sweeps) echo "--state --limit --json --help" ;;
    sweep) echo "--cpu --gpu --emc --param --dvfs --repeat --ci --max-repeat --search --max-runs --warmup --cooldown --baseline --items --seed --name --resume --progress --retries --min-coverage --max-gap --csv --json --out --format --help" ;;
    live) echo "--interval --count --json --help" ;;
    pin) echo "--cpu --gpu --emc --domain --governor --allow-offline-cpus --for --run --hold --json --help" ;;
    unpin) echo "--all --json --help" ;;
    help) echo "--json --help" ;;
  esac
}

_energyctl() {
  local cur prev words cword
  _init_completion 2>/dev/null || {
    cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"
    words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
  }
  case "$prev" in
    --socket | --output | -o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --format) if [[ " ${COMP_WORDS[*]} " == *" plot "* ]]; then
        COMPREPLY=($(compgen -W "png svg pdf" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "csv json" -- "$cur"))
      fi; return ;;
    --out) if [[ " ${COMP_WORDS[*]} " == *" sweep "* ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))
      fi; return ;;
    --since | --until) COMPREPLY=($(compgen -W "now -15m -1h -1d" -- "$cur")); return ;;
    --state) if [[ " ${COMP_WORDS[*]} " == *" sweeps "* ]]; then
        COMPREPLY=($(compgen -W "running interrupted complete" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "open stopped interrupted" -- "$cur"))
      fi; return ;;
    --duration | --baseline | --for) COMPREPLY=($(compgen -W "10s 30s 1m" -- "$cur")); return ;;
    --timeout | --connect-timeout) COMPREPLY=($(compgen -W "5s 10s 30s 1m" -- "$cur")); return ;;
    --interval) COMPREPLY=($(compgen -W "500ms 1s 2s" -- "$cur")); return ;;
    --cpu | --gpu | --emc) COMPREPLY=($(compgen -W "min max mid all" -- "$cur")); return ;;
    --cooldown) COMPREPLY=($(compgen -W "auto off 30s" -- "$cur")); return ;;
    --progress) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
  esac
  local i command="" sub=""
  for ((i = 1; i < cword; i++)); do
    case "${words[i]}" in
      --socket | --timeout | --connect-timeout) [[ -z "$command" ]] && ((i++)) ;;
      -*) ;;
      *) if [[ -z "$command" ]]; then command="${words[i]}"; elif [[ -z "$sub" ]]; then sub="${words[i]}"; fi ;;
    esac
  done
  if [[ -z "$command" ]]; then
    COMPREPLY=($(compgen -W "$_energyctl_commands $_energyctl_global_options" -- "$cur"))
  elif [[ "$command" == mark && -z "$sub" ]]; then
    COMPREPLY=($(compgen -W "start stop" -- "$cur"))
  elif [[ "$command" == sweep && -z "$sub" && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "show export plot" -- "$cur"))
  elif [[ "$command" == help && -z "$sub" ]]; then
    COMPREPLY=($(compgen -W "$_energyctl_commands" -- "$cur"))
  elif [[ ("$command" == run || "$command" == sweep) && -n "$sub" ]]; then
    COMPREPLY=($(compgen -c -f -- "$cur"))  # CMD and its arguments are CMD's
  else
    COMPREPLY=($(compgen -W "$(_energyctl_options "$command")" -- "$cur"))
  fi
}
complete -F _energyctl energyctl
