#!/usr/bin/env bash
# Makes the gallery (docs/gallery.md): trains one exact model per task with the default recipe (no
# flags but the seed), checks it, and draws it into docs/gallery/. The seeds are ones the
# sweeps in docs/recipes.md found exact; `train` stops at the first exact epoch, as there.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'TXT'
Usage: scripts/gallery.sh [--models DIR]

Trains the gallery's models into DIR (default: runs/gallery; a model already there is
kept), prints `logicars check` for each, and writes the pictures to docs/gallery/.
About 4 minutes on an idle 2-core host, once built.
TXT
}

models=runs/gallery
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scripts/gallery.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

cargo build --release --quiet
logicars=target/release/logicars
out=docs/gallery
mkdir -p "$models" "$out"

# train TASK SEED: the default recipe's run of TASK from SEED, once.
train() {
  local model="$models/$1-seed$2/model.json"
  if [ ! -f "$model" ]; then
    "$logicars" train "$1" --seed "$2" --no-artefacts --save "$model"
  fi
}

train checkerboard 0
train checkerboard 1
train checkerboard 2
train checkerboard-async 9900
train checkerboard-async 9903
train checkerboard-async 9905
train gol 0
train colored-g 10400
train lizard 11115

cb="$models/checkerboard-seed0/model.json"
async="$models/checkerboard-async-seed9900/model.json"
gol="$models/gol-seed0/model.json"
g="$models/colored-g-seed10400/model.json"
lizard="$models/lizard-seed11115/model.json"

"$logicars" check --model "$gol"
"$logicars" check --model "$g"
# The robustness figure: three exact models of each kind, the same 4000 async steps.
"$logicars" check --model "$async" --model "$models/checkerboard-async-seed9903/model.json" \
  --model "$models/checkerboard-async-seed9905/model.json" --model "$cb" \
  --model "$models/checkerboard-seed1/model.json" --model "$models/checkerboard-seed2/model.json" \
  --robustness-svg "$out/robustness.svg"

"$logicars" render --model "$cb" --scale 4 --out "$out/checkerboard-growing.png"
"$logicars" render --model "$cb" --size 64x64 --steps 80 --scale 3 --damage 20x20@1..40 \
  --out "$out/checkerboard-healing.gif"
"$logicars" render --model "$async" --async --size 56x56 --steps 200 --scale 3 \
  --damage 20x20@1..100 --out "$out/checkerboard-async-healing.gif"
"$logicars" render --model "$gol" --size 64x64 --steps 100 --scale 3 --out "$out/gol.gif"
"$logicars" render --model "$g" --view rgb --steps 30 --scale 4 --out "$out/colored-g-growing.png"
"$logicars" render --model "$g" --view rgb --steps 60 --scale 6 --damage 8x8@15..30 \
  --out "$out/colored-g-regrowth.gif"
# A page to play with per model (`export --format html`), linked from docs/gallery.md.
"$logicars" export --model "$cb" --format html --out "$out/checkerboard.html"
"$logicars" export --model "$async" --format html --out "$out/checkerboard-async.html"
"$logicars" export --model "$gol" --format html --out "$out/gol.html"
"$logicars" export --model "$g" --format html --out "$out/colored-g.html"
"$logicars" export --model "$lizard" --format html --out "$out/lizard.html"
echo "written: $out"
