#!/usr/bin/env bash
# The server's test suite on PostgreSQL: a throwaway cluster, every test
# server on a new database in it (TONGBAN_TEST_DATABASE_URL), the
# two-node tests (ClusterTests) included; the cluster is removed after.
set -euo pipefail
SWIFT=${SWIFT:-swift}
dir=$(mktemp -u /tmp/tongban-pg.XXXXXX)
trap 'bash Tests/pg/cluster.sh stop "$dir"' EXIT
url=$(bash Tests/pg/cluster.sh start "$dir")
TONGBAN_TEST_DATABASE_URL=$url $SWIFT test --skip-build --filter ChatServerTests
