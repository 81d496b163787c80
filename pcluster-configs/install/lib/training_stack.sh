# shellcheck shell=bash
# The Python training stack (torch-neuronx, torch-xla, neuronx-cc, neuronx-distributed, the
# trainer's numpy, h5py, safetensors and tensorboard) in one virtual environment per compute node
# (sourced, not run).
# trn-run puts its bin directory first on the training and compile steps' PATH.

# Every pip requirement, one per line, in install order.
trn_training_requirements() {
  printf '%s\n' "$TRN_PIP_TORCH" "$TRN_PIP_TORCH_XLA" "$TRN_PIP_TORCH_NEURONX" \
    "$TRN_PIP_LIBNEURONXLA" "$TRN_PIP_NEURONX_CC" "$TRN_PIP_NEURONX_DISTRIBUTED"
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
  echo "system packages (apt or yum, from the Neuron repository):"
  trn_neuron_system_packages | sed 's/^/  /'
  if [[ -x $root$TRN_DLAMI_TRAINING_VENV/bin/python3 ]]; then
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
  if [[ -x $dlami/bin/python3 ]]; then
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
