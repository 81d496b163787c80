#!/usr/bin/env bash
# Checks what spank_trn.so exports and links: only the SPANK entry points and plugin identity
# symbols are defined dynamic symbols, and neither libslurm nor libfabric/MPI is a dependency.
set -euo pipefail
plugin=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

exports=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort)
for required in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init \
  slurm_spank_init_post_opt slurm_spank_task_init_privileged slurm_spank_task_init \
  slurm_spank_exit; do
  grep -qx "$required" <<<"$exports" || fail "$required is not exported"
done
# No SPANK prolog/epilog: slurmd would start an extra process per job and node for them.
if grep -Eq '^slurm_spank_job_(prolog|epilog)$' <<<"$exports"; then fail "exports a job prolog/epilog"; fi
unexpected=$(grep -Ev '^(slurm_spank_[a-z_]+|plugin_name|plugin_type|plugin_version|spank_plugin_version)$' <<<"$exports" || true)
[[ -z $unexpected ]] || fail "unexpected exported symbols: $(tr '\n' ' ' <<<"$unexpected")"

needed=$(objdump -p "$plugin" | awk '/NEEDED/ {print $2}')
if grep -Eq 'libslurm|libfabric|libmpi' <<<"$needed"; then
  fail "links what the host or the tasks provide: $(tr '\n' ' ' <<<"$needed")"
fi
undefined=$(nm -D --undefined-only "$plugin" | awk '{print $2}')
for symbol in spank_get_item spank_setenv slurm_error; do
  grep -qx "$symbol" <<<"$undefined" || fail "$symbol should come from the host (undefined), it does not"
done
echo "ok: exports $(wc -l <<<"$exports") symbols; needs $(tr '\n' ' ' <<<"$needed")"
