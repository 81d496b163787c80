#!/usr/bin/env bash
# trn-slurm-install.sh --dry-run lists what a compute node gets - the Neuron packages and the
# Python training stack with the pins of versions.env, and the environment's path - for an SDK
# release that still trains with torch-xla (trn1), and changes nothing. With the Neuron DLAMI's
# environment present it says it uses that one. trn2/trn3 get Neuron 2.33's TorchNeuron stack.
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

# trn2 and trn3 get Neuron 2.33's TorchNeuron stack (PyTorch 2.13, no torch-xla), chosen by
# --stack torchneuron or by the instance type (DMI product name) under the default --stack auto;
# trn1 keeps the torch-xla stack. The DLAMI's PyTorch 2.9 environment is never TorchNeuron's.
tn_pins=("$TRN_TN_PIP_TORCH" "$TRN_TN_PIP_TORCH_NEURONX" "$TRN_TN_PIP_NEURONX_CC" numpy h5py
  safetensors tensorboard "aws-neuronx-dkms=$TRN_TN_NEURON_DKMS_VERSION"
  "aws-neuronx-runtime-lib=$TRN_TN_NEURON_RUNTIME_VERSION"
  "aws-neuronx-collectives=$TRN_TN_NEURON_COLLECTIVES_VERSION"
  "aws-neuronx-tools=$TRN_TN_NEURON_TOOLS_VERSION")
expect_torchneuron() {
  local out=$1 pin
  grep -qx "Neuron SDK 2.33.0" <<<"$out" || fail "not Neuron 2.33: $out"
  grep -qx "stack: torchneuron" <<<"$out" || fail "not the TorchNeuron stack: $out"
  for pin in "${tn_pins[@]}"; do grep -qxF "  $pin" <<<"$out" || fail "'$pin' is not listed: $out"; done
  ! grep -q 'torch-xla\|libneuronxla\|neuronx-distributed' <<<"$out" || fail "torch-xla packages in the TorchNeuron stack: $out"
  grep -qxF "  torch==2.13.0" <<<"$out" && grep -qxF "  torch-neuronx==2.13.3.0.*" <<<"$out" ||
    fail "not PyTorch 2.13 with torch-neuronx 2.13.3.0: $out"
  grep -q "^training environment: $TRN_TRAINING_VENV (python3 -m venv" <<<"$out" ||
    fail "TorchNeuron must be installed into the venv, not taken from the DLAMI: $out"
}
expect_torchneuron "$(bash "$install" --dry-run --stack torchneuron --test-root "$work/dlami")"
for product in trn2.48xlarge trn2u.48xlarge trn3.48xlarge trn1.32xlarge trn1n.32xlarge; do
  mkdir -p "$work/$product/sys/class/dmi/id"
  echo "$product" >"$work/$product/sys/class/dmi/id/product_name"
  out=$(bash "$install" --dry-run --test-root "$work/$product")
  case $product in
    trn1*) grep -qx "stack: xla" <<<"$out" && grep -qxF "  $TRN_PIP_TORCH_XLA" <<<"$out" ||
      fail "$product did not get the torch-xla stack: $out" ;;
    *) expect_torchneuron "$out" ;;
  esac
done
if err=$(bash "$install" --dry-run --stack cuda 2>&1); then fail "--stack cuda accepted"; else rc=$?; fi
[[ $rc == 2 && $(wc -l <<<"$err") == 1 && $err == *"--stack 'cuda'"*"xla, torchneuron or auto"* ]] ||
  fail "--stack cuda: exit $rc, '$err'"
echo "ok"
