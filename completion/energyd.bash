# bash completion for energyd(8)
_energyd() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    --config | --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --root | --state-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --log-level) COMPREPLY=($(compgen -W "trace debug info warn error" -- "$cur")); return ;;
    --sample-period-ms | --flush-interval-ms | --checkpoint-interval-ms) return ;;
  esac
  COMPREPLY=($(compgen -W "--config --root --state-dir --socket --sample-period-ms --flush-interval-ms
    --checkpoint-interval-ms --log-level --version --help" -- "$cur"))
}
complete -F _energyd energyd
