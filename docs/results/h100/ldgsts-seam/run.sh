#!/bin/bash
# Where LDGSTS takes more shared-memory wavefronts than its slots need: step 11's
# async-only kernel at ed6ea98 profiled at five shapes, its LDGSTS instructions read one by one
# from the source page. Run from the root, with the packed programs in packed/ and $OUT set.
P=packed/steps/11-async-copy/11-async-copy
M=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,smsp__sass_inst_executed_op_ldgsts.sum,l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ldgsts_cache_access.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum
for shape in "4099 8192 float" "4099 8191 float" "4099 8191 double" "4097 256 float" "4104 8191 float"; do
  set -- $shape
  f=/tmp/r_${1}_${2}_$3
  ncu --clock-control none --launch-count 1 --section SourceCounters --metrics $M --export $f $P --variant async-only --dtype $3 --rows $1 --cols $2 --once --no-compare > /dev/null 2>&1
  echo "== $1 x $2 $3"
  ncu --import $f.ncu-rep --csv --page details --print-units base 2>/dev/null | grep -E 'ldgsts' | awk -F'","' '{print $(NF-2), $NF}'
  ncu --import $f.ncu-rep --csv --page source --print-source sass 2>/dev/null > $f.src.csv
  python3 - "$f.src.csv" <<'PY'
import csv,io,sys
t=open(sys.argv[1]).read(); s=t.find('"Address"') if '"Address"' in t else t.find('"#"')
rows=list(csv.DictReader(io.StringIO(t[s:])))
c=rows[0].keys()
print([k for k in c if 'avefront' in k or 'Sector' in k or 'Request' in k][:20])
def col(*m,avoid=()):
    for k in c:
        if all(w in k for w in m) and not any(w in k for w in avoid): return k
src=col("Source"); ex=col("Instructions Executed",avoid=("Thread","Predicated")); th=col("Predicated-On Thread Instructions Executed"); wf=col("Wavefronts Shared",avoid=("Ideal","Excessive")); wi=col("Wavefronts Shared Ideal")
gs=col("L2 Theoretical Sectors Global",avoid=("Excessive","Ideal")) or col("Sectors Global",avoid=("Excessive","Ideal"))
for r in rows:
    if "LDGSTS" in (r[src] or "") and r[ex] not in ("0",""):
        print(r.get("Address","?")[-5:], r[src].strip()[:34], "exec",r[ex], "thr",r.get(th,""), "wf",r[wf], "ideal",r.get(wi,""), "gsect", r.get(gs,""))
PY
done
