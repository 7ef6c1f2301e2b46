#!/usr/bin/env bash
# Builds the DocC documentation of the two library modules, TimerLoop and
# BlockTimers, from their symbol graphs and catalogs (Sources/<Module>/<Module>.docc)
# with the docc that ships with the toolchain: no plugin, no network. Any docc
# warning (a broken symbol link, an undocumented parameter of a documented
# function) fails the script. TimerLoop's manual is one catalog for what
# `import TimerLoop` gives: its graph is extracted with the symbols of the
# three modules it re-exports (TimerLoopCore, TimerLoopEpoll,
# TimerLoopFoundation), which `dump-symbol-graph` would leave out.
#
#   Scripts/build-docs.sh [OUTPUT_DIR]        # default .build/docs; one <Module>.doccarchive each
#   Scripts/build-docs.sh --preview MODULE    # serves MODULE's documentation on
#                                             # http://localhost:8080/documentation/<module>
set -euo pipefail
cd "$(dirname "$0")/.."

preview=
if [ "${1:-}" = --preview ]; then
  case "${2:-}" in
    TimerLoop | BlockTimers) preview=$2 ;;
    *) echo "usage: Scripts/build-docs.sh --preview TimerLoop|BlockTimers" >&2; exit 2 ;;
  esac
  out=.build/docs-preview
else
  out=${1:-.build/docs}
fi
# The debug build `swift test` makes, so CI compiles nothing twice. The tests
# are built too: dump-symbol-graph also visits the test modules, and fails if
# they are missing.
swift build --build-tests
# Extracts the public symbols of each module.
graphs=$(swift package dump-symbol-graph | sed -n 's/^Files written to //p')
if [ -z "$graphs" ]; then
  echo "build-docs: swift package dump-symbol-graph did not say where it wrote" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
# The umbrella's graph, with the re-exported modules' public symbols in it
# (as TimerLoop's), from the modules the build above wrote.
bin=$(swift build --show-bin-path)
mkdir "$work/umbrella"
swift-symbolgraph-extract -module-name TimerLoop -target "$(uname -m)-unknown-linux-gnu" \
  -I "$bin/Modules" -Xcc -fmodule-map-file="$bin/CShims.build/module.modulemap" \
  -Xcc -fmodule-map-file="$bin/CClock.build/module.modulemap" \
  -minimum-access-level public \
  -experimental-allowed-reexported-modules=TimerLoopCore,TimerLoopEpoll,TimerLoopFoundation \
  -output-dir "$work/umbrella"
for module in ${preview:-TimerLoop BlockTimers}; do
  # docc reads every graph in the directory: give it this module's only
  # (its own and its extensions of other modules' types, Module@Other).
  mkdir "$work/$module"
  if [ "$module" = TimerLoop ]; then
    cp "$work/umbrella/"*.symbols.json "$work/$module/"
  else
    cp "$graphs/$module.symbols.json" "$work/$module/"
    cp "$graphs/$module@"*.symbols.json "$work/$module/" 2>/dev/null || true
  fi
  rm -rf "$out/$module.doccarchive"
  if [ -n "$preview" ]; then
    # Rebuilds when the catalog changes; stop it with Ctrl-C.
    docc preview "Sources/$module/$module.docc" \
      --additional-symbol-graph-dir "$work/$module" \
      --output-dir "$out/$module.doccarchive" \
      --fallback-display-name "$module" \
      --fallback-bundle-identifier "timerloop.$module"
    exit
  fi
  echo "== docc convert $module"
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$work/$module" \
    --output-dir "$out/$module.doccarchive" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "timerloop.$module" \
    --warnings-as-errors
done
echo "build-docs: both modules' documentation built with no warnings, in $out"
