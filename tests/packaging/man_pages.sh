#!/usr/bin/env bash
# The man pages render without a single groff or man warning, and document every option the
# tools' --help lists (so a new option without documentation fails here).
#   man_pages.sh PAGE...    (TRN_BUILD_DIR: the build tree whose bin/ holds the tools)
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
(($# > 0)) || fail "no man pages given"

for page in "$@"; do
  [[ -f $page ]] || fail "$page does not exist"
  warnings=$(groff -man -ww -z "$page" 2>&1) || fail "groff failed on $page: $warnings"
  [[ -z $warnings ]] || fail "groff warns on $page:"$'\n'"$warnings"
  # man-db's own pipeline (preconv, tbl, the man macros at its line width) with warnings on.
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man failed on $page: $warnings"
  [[ -z $warnings ]] || fail "man --warnings complains about $page:"$'\n'"$warnings"
  head -n 5 "$page" | grep -q '^\.TH ' || fail "$page has no .TH header"
  grep -q '^\.SH NAME' "$page" || fail "$page has no NAME section (whatis/apropos need it)"
done

# The page's text with roff's escaped hyphens and font changes removed: "\-\-steps" -> "--steps".
page_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\c$//' "$1"; }

# documents PAGE TOOL [ARGS...]: every --option in TOOL's help appears in PAGE.
documents() {
  local page=$1 help option missing=()
  shift
  [[ -x $1 ]] || fail "$1 is not built: build the project before running this test"
  help=$("$@" --help 2>&1) || fail "$* --help failed: $help"
  local text
  text=$(page_text "$page")
  for option in $(grep -oE -- '--[a-z][a-z-]*[a-z]' <<<"$help" | sort -u); do
    grep -qE -- "${option}([^a-z-]|$)" <<<"$text" || missing+=("$option")
  done
  ((${#missing[@]} == 0)) || fail "$(basename "$page") does not document ${missing[*]} (from $* --help)"
  echo "ok: $(basename "$page") documents all $(grep -oE -- '--[a-z][a-z-]*[a-z]' <<<"$help" | sort -u | wc -l) options of $(basename "$1")"
}

bin=${TRN_BUILD_DIR:?TRN_BUILD_DIR must name the build tree}/bin
for page in "$@"; do
  case $(basename "$page") in
    trn-run.1) documents "$page" "$bin/trn-run" ;;
    trn-topo.1) documents "$page" "$bin/trn-topo" ;;
    trn-cache.1) documents "$page" "$bin/trn-cache" ;;
    trn-health.1) documents "$page" "$bin/trn-health" ;;
  esac
done
echo "ok: $# man pages render without warnings"
