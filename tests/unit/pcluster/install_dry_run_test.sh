#!/usr/bin/env bash
# trn-slurm-install.sh --dry-run lists what a compute node gets - the Neuron packages and the
# Python training stack with the pins of versions.env, and the environment's path - for an SDK
# release that still trains with torch-xla, and changes nothing. With the Neuron DLAMI's
# environment present it says it uses that one.
# usage: install_dry_run_test.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
install=$src/pcluster-configs/install/trn-slurm-install.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=/dev/null
. "$src/pcluster-configs/install/versions.env"

out=$(bash "$install" --dry-run --test-root "$work/root")
[[ -z $(find "$work/root" -mindepth 1 2>/dev/null) ]] || fail "--dry-run changed $(find "$work/root" -mindepth 1 | head -3)"
grep -qx "Neuron SDK $TRN_NEURON_SDK_VERSION" <<<"$out" || fail "no SDK line: $out"
for pin in "$TRN_PIP_TORCH" "$TRN_PIP_TORCH_XLA" "$TRN_PIP_TORCH_NEURONX" "$TRN_PIP_LIBNEURONXLA" \
  "$TRN_PIP_NEURONX_CC" "$TRN_PIP_NEURONX_DISTRIBUTED" numpy h5py safetensors tensorboard \
  "aws-neuronx-dkms=$TRN_NEURON_DKMS_VERSION" "aws-neuronx-runtime-lib=$TRN_NEURON_RUNTIME_VERSION" \
  "aws-neuronx-collectives=$TRN_NEURON_COLLECTIVES_VERSION" "aws-neuronx-tools=$TRN_NEURON_TOOLS_VERSION"; do
  grep -qxF "  $pin" <<<"$out" || fail "'$pin' is not listed: $out"
done
grep -q "^training environment: $TRN_TRAINING_VENV (python3 -m venv; pip --extra-index-url $TRN_NEURON_PIP_INDEX)" <<<"$out" ||
  fail "no training environment line: $out"
# Every pin is exact (==), so two nodes never train with different stacks.
for pin in "$TRN_PIP_TORCH" "$TRN_PIP_TORCH_XLA" "$TRN_PIP_TORCH_NEURONX" "$TRN_PIP_NEURONX_CC" \
  "$TRN_PIP_LIBNEURONXLA" "$TRN_PIP_NEURONX_DISTRIBUTED"; do
  [[ $pin == *==* ]] || fail "'$pin' is not pinned"
done
# The release still trains with torch-xla (docs/hardware.md): SDK <= 2.28, PyTorch/XLA 2.9.
sdk=${TRN_NEURON_SDK_VERSION%.*}
[[ $(printf '%s\n%s\n' "$sdk" "$TRN_NEURON_LAST_XLA_TRAINING_SDK" | sort -V | tail -1) == "$TRN_NEURON_LAST_XLA_TRAINING_SDK" ]] ||
  fail "SDK $TRN_NEURON_SDK_VERSION no longer trains with torch-xla (last: $TRN_NEURON_LAST_XLA_TRAINING_SDK)"
[[ $TRN_PIP_TORCH_XLA == "torch-xla==2.9."* && $TRN_PIP_TORCH_NEURONX == "torch-neuronx==2.9."* ]] ||
  fail "the torch-xla/torch-neuronx pins are not PyTorch 2.9's"

mkdir -p "$work/dlami$TRN_DLAMI_TRAINING_VENV/bin"
ln -s /usr/bin/python3 "$work/dlami$TRN_DLAMI_TRAINING_VENV/bin/python3"
out=$(bash "$install" --dry-run --test-root "$work/dlami")
grep -q "^training environment: $TRN_DLAMI_TRAINING_VENV (the Neuron DLAMI's; nothing installed)" <<<"$out" ||
  fail "the DLAMI's environment was not used: $out"
echo "ok"
