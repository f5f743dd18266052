#!/usr/bin/env bash
# Formats every C and C++ source of the repository with clang-format 14 and the repository's
# .clang-format (Google style, 120 columns).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing; list the files that are not formatted, exit 1 if any
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
format=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n $format ]] || { echo "format: clang-format is not installed (Debian: apt install clang-format-14)" >&2; exit 2; }
cd "$here"
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.inl' '*.hpp' '*.c')
if [[ ${1:-} == --check ]]; then
  bad=()
  for f in "${files[@]}"; do
    "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if ((${#bad[@]})); then
    printf 'format: not formatted (run scripts/format.sh): %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
else
  "$format" -i "${files[@]}"
fi
