#!/bin/sh
# Open MPI's rsh agent on the local cluster (OMPI_MCA_plm_rsh_agent): mpirun runs
# `AGENT HOST COMMAND...` to start its daemon on HOST; here HOST is a node's network namespace,
# entered as `scripts/cluster on` enters it, where ssh would log in on a real cluster.
host=$1
shift
exec "$TRN_SOURCE_DIR/scripts/cluster" --name "$TRN_TEST_CLUSTER" on "$host" sh -c "$*"
