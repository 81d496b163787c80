# shellcheck shell=bash
# Neuron, EFA and build dependencies (sourced, not run). Only called on real nodes.

trn_package_manager() {
  if command -v apt-get >/dev/null; then
    echo apt
  elif command -v dnf >/dev/null; then
    echo dnf
  elif command -v yum >/dev/null; then
    echo yum
  else
    trn_die "no apt-get, dnf or yum on this node: use a ParallelCluster AMI (Ubuntu, Amazon Linux, RHEL or Rocky)"
  fi
}

# Version of an installed package, empty when it is not installed.
trn_installed_version() {
  local package=$1
  case $(trn_package_manager) in
    apt) dpkg-query -W -f='${Version}' "$package" 2>/dev/null || true ;;
    *) rpm -q --qf '%{VERSION}' "$package" 2>/dev/null | grep -v 'not installed' || true ;;
  esac
}

trn_add_neuron_repository() {
  case $(trn_package_manager) in
    apt)
      # shellcheck disable=SC1091
      . /etc/os-release
      install -d -m 0755 /etc/apt/keyrings
      curl -fsSL https://apt.repos.neuron.amazonaws.com/GPG-PUB-KEY-AMAZON-AWS-NEURON.PUB |
        gpg --dearmor --yes -o /etc/apt/keyrings/neuron.gpg
      echo "deb [signed-by=/etc/apt/keyrings/neuron.gpg] https://apt.repos.neuron.amazonaws.com ${VERSION_CODENAME} main" \
        >/etc/apt/sources.list.d/neuron.list
      apt-get update -y
      ;;
    *)
      cat >/etc/yum.repos.d/neuron.repo <<'REPO'
[neuron]
name=Neuron YUM Repository
baseurl=https://yum.repos.neuron.amazonaws.com
enabled=1
metadata_expire=0
REPO
      rpm --import https://yum.repos.neuron.amazonaws.com/GPG-PUB-KEY-AMAZON-AWS-NEURON.PUB
      ;;
  esac
}

# Installs the pinned Neuron driver, runtime, collectives and tools unless exactly those
# versions are there already.
trn_install_neuron() {
  local -A wanted=(
    [aws-neuronx-dkms]=$TRN_NEURON_DKMS_VERSION
    [aws-neuronx-runtime-lib]=$TRN_NEURON_RUNTIME_VERSION
    [aws-neuronx-collectives]=$TRN_NEURON_COLLECTIVES_VERSION
    [aws-neuronx-tools]=$TRN_NEURON_TOOLS_VERSION
  )
  local package missing=()
  for package in "${!wanted[@]}"; do
    if [[ $(trn_installed_version "$package") != "${wanted[$package]}"* ]]; then
      missing+=("$package")
    fi
  done
  if ((${#missing[@]} == 0)); then
    trn_log "Neuron SDK $TRN_NEURON_SDK_VERSION packages already installed"
    return 0
  fi
  trn_log "installing Neuron SDK $TRN_NEURON_SDK_VERSION packages: ${missing[*]}"
  trn_add_neuron_repository
  local specs=()
  case $(trn_package_manager) in
    apt)
      for package in "${missing[@]}"; do specs+=("$package=${wanted[$package]}*"); done
      DEBIAN_FRONTEND=noninteractive apt-get install -y --allow-downgrades --allow-change-held-packages \
        "linux-headers-$(uname -r)" "${specs[@]}"
      ;;
    *)
      for package in "${missing[@]}"; do specs+=("$package-${wanted[$package]}*"); done
      "$(trn_package_manager)" install -y "kernel-devel-$(uname -r)" "kernel-headers-$(uname -r)" "${specs[@]}"
      ;;
  esac
}

# EFA software, only where the node has EFA devices and the AMI lacks it.
trn_install_efa() {
  if ! grep -qs '0xefa' /sys/class/infiniband/*/device/device; then
    trn_log "no EFA device on this node: EFA software not needed"
    return 0
  fi
  if [[ -x /opt/amazon/efa/bin/fi_info ]]; then
    trn_log "EFA software already installed ($(head -1 /opt/amazon/efa_installed_packages 2>/dev/null || echo /opt/amazon/efa))"
    return 0
  fi
  local work
  work=$(mktemp -d)
  trn_log "installing EFA installer $TRN_EFA_INSTALLER_VERSION"
  curl -fsSL -o "$work/efa.tar.gz" "https://efa-installer.amazonaws.com/aws-efa-installer-$TRN_EFA_INSTALLER_VERSION.tar.gz"
  tar -xzf "$work/efa.tar.gz" -C "$work"
  (cd "$work/aws-efa-installer" && ./efa_installer.sh -y)
  rm -rf "$work"
}

# Compiler, CMake and the libraries trn-slurm builds against (cmake/TrnDependencies.cmake).
trn_install_build_dependencies() {
  case $(trn_package_manager) in
    apt)
      DEBIAN_FRONTEND=noninteractive apt-get install -y build-essential cmake ninja-build pkg-config \
        libhwloc-dev libyaml-cpp-dev libboost-program-options-dev nlohmann-json3-dev python3-venv
      # EFA's libfabric (/opt/amazon/efa) is preferred; the distribution's only as a fallback.
      trn_pkg_config_path
      pkg-config --exists libfabric || DEBIAN_FRONTEND=noninteractive apt-get install -y libfabric-dev
      ;;
    *)
      "$(trn_package_manager)" install -y gcc-c++ make cmake ninja-build pkgconf-pkg-config \
        hwloc-devel yaml-cpp-devel boost-devel json-devel python3
      trn_pkg_config_path
      pkg-config --exists libfabric || "$(trn_package_manager)" install -y libfabric-devel
      ;;
  esac
}

trn_pkg_config_path() {
  local dir
  for dir in /opt/amazon/efa/lib/pkgconfig /opt/amazon/efa/lib64/pkgconfig; do
    [[ -d $dir ]] && export PKG_CONFIG_PATH="$dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  done
  return 0
}

# A cmake of at least TRN_CMAKE_MIN_VERSION on PATH; from PyPI when the distribution's is older.
trn_ensure_cmake() {
  local have
  have=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
  if [[ -n $have ]] && [[ $(printf '%s\n%s\n' "$TRN_CMAKE_MIN_VERSION" "$have" | sort -V | head -1) == "$TRN_CMAKE_MIN_VERSION" ]]; then
    trn_log "cmake $have is recent enough"
    return 0
  fi
  trn_log "cmake ${have:-missing} is older than $TRN_CMAKE_MIN_VERSION: installing cmake $TRN_CMAKE_PIP_VERSION from PyPI"
  python3 -m venv /opt/trn-slurm/tools
  /opt/trn-slurm/tools/bin/pip install --quiet "cmake==$TRN_CMAKE_PIP_VERSION"
  export PATH="/opt/trn-slurm/tools/bin:$PATH"
}
