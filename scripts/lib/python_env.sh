# The project's Python environment: a venv holding exactly what requirements.txt pins, made by
# scripts/bootstrap and run through scripts/python (sourced by both).
# TRN_PYTHON_ENV: where it lives (default /usr/local/lib/trn-python, one per machine).
trn_python_env=${TRN_PYTHON_ENV:-/usr/local/lib/trn-python}
trn_python_requirements=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/requirements.txt
readonly trn_python_stamp=trn-requirements.sha256

# The checksum of requirements.txt, which bootstrap writes into the venv after a complete install.
trn_python_requirements_sum() { sha256sum <"$trn_python_requirements"; }

# Whether the environment exists and was completed for this very requirements.txt.
trn_python_env_current() {
  [[ -x $trn_python_env/bin/python && -f $trn_python_env/$trn_python_stamp ]] &&
    [[ $(<"$trn_python_env/$trn_python_stamp") == "$(trn_python_requirements_sum)" ]]
}
