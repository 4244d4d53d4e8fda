#!/usr/bin/env bash
# Regenerates cmd/weft/default.pgo, the CPU profile the Go toolchain uses
# for profile-guided optimisation when it builds weft (go build picks it up
# by itself). The profile comes from the engine's own workloads: the
# paper's benchmarks in the unfolding modes and the SDPOR benchmarks. Rerun
# after large changes to the engine; measured gain when it was introduced:
# 5-10% wall time on MPAT(6), DISP(5,4) and POL(8,3) optimal.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/engine.test" ./engine
i=0
for f in mpat_6 disp_5_4 pol_8_3 pi_8 mpc_3_5 disp_3_4; do
  for m in optimal qpor:3 qpor:1; do
    i=$((i + 1))
    (cd engine && WEFT_QPOR_BENCH=$m WEFT_QPOR_FILES=$f \
      "$tmp/engine.test" -test.run TestQPORBenchmarks -test.cpuprofile "$tmp/q$i.prof" >/dev/null)
  done
done
(cd engine && "$tmp/engine.test" -test.run XXX -test.bench 'SDPOR|LocalLoop' \
  -test.benchtime 2s -test.cpuprofile "$tmp/sdpor.prof" >/dev/null)
go tool pprof -proto "$tmp"/*.prof > cmd/weft/default.pgo
echo "wrote cmd/weft/default.pgo"
