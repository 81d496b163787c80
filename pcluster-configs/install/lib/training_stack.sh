# shellcheck shell=bash
# The Python training stack in one virtual environment per compute node (sourced, not run):
# torch-xla's (torch-neuronx, torch-xla, neuronx-cc, neuronx-distributed) on trn1, TorchNeuron's
# (torch, torch-neuronx, neuronx-cc) on trn2 and trn3, each with the trainer's numpy, h5py,
# safetensors and tensorboard.
# trn-run puts its bin directory first on the training and compile steps' PATH.

# The stack a node gets: `torchneuron` (Neuron 2.33's TorchNeuron, trn2 and trn3) or `xla`
# (the frozen torch-xla stack, trn1 and trn1n). `auto` picks by the node's instance type (its
# DMI product name): TorchNeuron supports only trn2 and trn3.
trn_detect_stack() {
  local product
  product=$(cat "$root/sys/class/dmi/id/product_name" 2>/dev/null || true)
  case $product in
    trn2* | trn3*) echo torchneuron ;;
    *) echo xla ;;
  esac
}

# Makes the versions.env pins of `stack` the ones every function below uses.
trn_select_stack() {
  TRN_STACK=$1
  case $TRN_STACK in
    xla) ;;
    torchneuron)
      TRN_NEURON_SDK_VERSION=$TRN_TN_NEURON_SDK_VERSION
      TRN_NEURON_DKMS_VERSION=$TRN_TN_NEURON_DKMS_VERSION
      TRN_NEURON_RUNTIME_VERSION=$TRN_TN_NEURON_RUNTIME_VERSION
      TRN_NEURON_COLLECTIVES_VERSION=$TRN_TN_NEURON_COLLECTIVES_VERSION
      TRN_NEURON_TOOLS_VERSION=$TRN_TN_NEURON_TOOLS_VERSION
      # The DLAMI's PyTorch 2.9 environment is torch-xla's: never TorchNeuron's.
      TRN_DLAMI_TRAINING_VENV=
      ;;
    *) trn_die "unknown --stack '$TRN_STACK': use xla, torchneuron or auto" ;;
  esac
}

# Every pip requirement, one per line, in install order.
trn_training_requirements() {
  if [[ ${TRN_STACK:-xla} == torchneuron ]]; then
    printf '%s\n' "$TRN_TN_PIP_TORCH" "$TRN_TN_PIP_TORCH_NEURONX" "$TRN_TN_PIP_NEURONX_CC"
  else
    printf '%s\n' "$TRN_PIP_TORCH" "$TRN_PIP_TORCH_XLA" "$TRN_PIP_TORCH_NEURONX" \
      "$TRN_PIP_LIBNEURONXLA" "$TRN_PIP_NEURONX_CC" "$TRN_PIP_NEURONX_DISTRIBUTED"
  fi
  local dep
  for dep in $TRN_PIP_TRAINER_DEPS; do printf '%s\n' "$dep"; done
}

# The Neuron driver set as apt/yum would install it, one "package=version" per line.
trn_neuron_system_packages() {
  printf '%s\n' "aws-neuronx-dkms=$TRN_NEURON_DKMS_VERSION" \
    "aws-neuronx-runtime-lib=$TRN_NEURON_RUNTIME_VERSION" \
    "aws-neuronx-collectives=$TRN_NEURON_COLLECTIVES_VERSION" \
    "aws-neuronx-tools=$TRN_NEURON_TOOLS_VERSION"
}

# What a compute node gets, without changing anything (--dry-run).
trn_print_install_plan() {
  local venv=$1
  echo "Neuron SDK $TRN_NEURON_SDK_VERSION"
  echo "stack: ${TRN_STACK:-xla}"
  echo "system packages (apt or yum, from the Neuron repository):"
  trn_neuron_system_packages | sed 's/^/  /'
  if [[ -n $TRN_DLAMI_TRAINING_VENV && -x $root$TRN_DLAMI_TRAINING_VENV/bin/python3 ]]; then
    echo "training environment: $TRN_DLAMI_TRAINING_VENV (the Neuron DLAMI's; nothing installed)"
  else
    echo "training environment: $venv (python3 -m venv; pip --extra-index-url $TRN_NEURON_PIP_INDEX):"
    trn_training_requirements | sed 's/^/  /'
  fi
}

# Points $TRN_TRAINING_VENV (a symbolic link) at the stack: the DLAMI's environment when present,
# else one built for this release. A venv cannot be moved once made (its scripts name its path),
# so it is built in its own versioned folder and the link is switched only when it is complete:
# an interrupted install leaves the previous environment in use.
trn_install_training_stack() {
  local venv=$1 dlami=$root$TRN_DLAMI_TRAINING_VENV target wanted
  if [[ -n $TRN_DLAMI_TRAINING_VENV && -x $dlami/bin/python3 ]]; then
    trn_point_link "$venv" "$dlami"
    trn_log "training environment: the Neuron DLAMI's $dlami"
    return
  fi
  wanted=$(trn_training_requirements)
  target=$venv-$TRN_NEURON_SDK_VERSION
  if [[ ! -f $target/trn-slurm-requirements.txt || $(cat "$target/trn-slurm-requirements.txt") != "$wanted" ]]; then
    rm -rf "$target"
    python3 -m venv "$target" || trn_die "python3 -m venv failed: install python3-venv (Ubuntu) or python3 (Amazon Linux)"
    # shellcheck disable=SC2046
    "$target/bin/pip" install --quiet --extra-index-url "$TRN_NEURON_PIP_INDEX" $(trn_training_requirements) ||
      trn_die "pip could not install the training stack of Neuron $TRN_NEURON_SDK_VERSION into $target; see the log above"
    printf '%s\n' "$wanted" >"$target/trn-slurm-requirements.txt"
  fi
  trn_point_link "$venv" "$target"
  trn_log "training environment: $venv -> $target (Neuron $TRN_NEURON_SDK_VERSION)"
}

# Replaces the link $1 with one to $2 in one rename.
trn_point_link() {
  mkdir -p "$(dirname "$1")"
  ln -sfn "$2" "$1.new.$$" && mv -Tf "$1.new.$$" "$1"
}
