# shellcheck shell=bash
# The Slurm side: trn.conf in plugstack.conf.d and the include line in plugstack.conf
# (sourced, not run). ParallelCluster's slurm.conf leaves PlugStackConfig at its default,
# <slurm>/etc/plugstack.conf; its cookbook creates <slurm>/etc/plugstack.conf.d for SPANK
# snippets (how it installs pyxis) but ships plugstack.conf itself only as an example.

# Writes FILE with CONTENT only when it differs, atomically (readers never see half a file).
trn_write_if_changed() {
  local file=$1 content=$2
  if [[ -f $file ]] && [[ "$(cat "$file")" == "$content" ]]; then
    trn_log "unchanged: $file"
    return 0
  fi
  local dir tmp
  dir=$(dirname "$file")
  mkdir -p "$dir"
  # Written next to the directory, not in it: "include <dir>/*" must never see a half file.
  tmp=$(mktemp "$(dirname "$dir")/.trn-install.XXXXXX")
  printf '%s\n' "$content" >"$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$file"
  trn_log "wrote: $file"
}

# The plugstack line that loads spank_trn.so with the cache tiers (the plugin's cache_root= and
# local_cache= arguments).
trn_conf_content() {
  local plugin=$1 cache_root=$2 local_cache=$3
  cat <<CONF
# spank_trn: NeuronCores, CPUs, EFA, rendezvous and compile cache for every Slurm task.
# Written by pcluster-configs/install/trn-slurm-install.sh; changes are overwritten on the next run.
required $plugin cache_root=$cache_root local_cache=$local_cache
CONF
}

# Makes PLUGSTACK include every snippet of CONF_DIR, keeping whatever else it holds.
trn_ensure_plugstack_include() {
  local plugstack=$1 conf_dir=$2
  local include="include $conf_dir/*"
  mkdir -p "$conf_dir" "$(dirname "$plugstack")"
  # Any include whose pattern already covers trn.conf will do (e.g. ".../plugstack.conf.d/*.conf");
  # a second one would load the plugin twice.
  local keyword pattern rest
  if [[ -f $plugstack ]]; then
    while read -r keyword pattern rest || [[ -n $keyword ]]; do
      # shellcheck disable=SC2053  # $pattern is a glob on purpose
      if [[ $keyword == include ]] && [[ $conf_dir/trn.conf == $pattern ]]; then
        trn_log "unchanged: $plugstack already has 'include $pattern'"
        return 0
      fi
    done <"$plugstack"
  fi
  if [[ -s $plugstack ]] && [[ -n $(tail -c1 "$plugstack") ]]; then
    printf '\n' >>"$plugstack"  # a last line without newline must not swallow ours
  fi
  printf '%s\n' "$include" >>"$plugstack"
  chmod 0644 "$plugstack"
  trn_log "added '$include' to $plugstack"
}
