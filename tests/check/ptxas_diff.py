"""Differential testing against ptxas (a development tool, not a test): random instructions from
the form table with random (often wrong) operands, one per line of one kernel; prints every line
that ptxas and the verifier judge differently.

    python tests/check/ptxas_diff.py SEED [COUNT [TARGET [VERSION]]]     # e.g. 7 300 sm_90a 8.7

ptxas reports the 32-bit-address problem once per file, so lines with `[%u32_1]` addresses may
show up as ours-only; the other disagreements are listed in the verifier's report.
"""
import random, subprocess, sys, re, os
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from ptxvm.isa import FORMS, lookup
from ptxvm.isa.match import MatchError
from ptxvm.isa.table import Kind
from ptxvm.frontend import parse
from ptxvm.check import verify
from ptxvm.errors import PtxError

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
TARGET = sys.argv[3] if len(sys.argv) > 3 else 'sm_90a'
VERSION = sys.argv[4] if len(sys.argv) > 4 else '8.7'
rng = random.Random(seed)
REGT = ['b16','b32','b64','u16','u32','u64','s16','s32','s64','f16','f32','f64','pred']
def reg(t, i=None):
    return f"%{t}_{rng.randint(0,3) if i is None else i}"
WRONG = 0.15
def scalar_for(ro, dst):
    t = ro.type
    r = rng.random()
    if t is None:
        return reg(rng.choice(['b32','b64','u32']))
    if t.name == 'pred':
        return ('!' if (not dst and rng.random() < .2) else '') + reg('pred')
    if r < WRONG:
        return reg(rng.choice(REGT))
    if not dst and r < WRONG + 0.15:
        return rng.choice(['1', '0', '-1', '7', '0f3F800000', '0d3FF0000000000000', '1.5', '%tid.x'])
    # a register of the right size, maybe another kind of the same size
    bits = t.bits
    cands = [x for x in REGT if x != 'pred' and int(re.sub(r'\D','',x)) == bits]
    if t.name in cands and rng.random() < .6:
        return reg(t.name)
    if bits in (16,32,64) and cands:
        return reg(rng.choice(cands))
    return reg('b32')
def operand(ro):
    k = ro.spec.kind
    dst = ro.spec.is_dst
    if k in (Kind.REG, Kind.RI, Kind.PRED):
        if k is Kind.PRED:
            return ('!' if (not dst and rng.random() < .3) else '') + reg('pred')
        return scalar_for(ro, dst)
    if k is Kind.IMM:
        if ro.spec.value is not None: return str(ro.spec.value)
        return str(rng.choice([0,1,4,8,16,24,32,255]))
    if k is Kind.ADDR:
        return rng.choice(['[%u64_1]','[%u64_1+8]','[%u32_1]','[gvar]','[svar]','[%f32_1]'])
    if k is Kind.VEC:
        n = ro.count
        if n is None: return None
        if n == 1: return scalar_for(ro, dst)
        return '{' + ', '.join(scalar_for(ro, dst) for _ in range(n)) + '}'
    if k is Kind.PAIR:
        return scalar_for(ro, dst)
    return None
lines = []
for f in rng.sample(list(FORMS), len(FORMS)):
    if len(lines) >= N: break
    sp = list(f.spellings(limit=8, seed=seed))
    if not sp: continue
    vals, mods = rng.choice(sp)
    r = lookup(f.opcode, mods)
    if isinstance(r, MatchError): continue
    if f.opcode in ('call','bra','brx','ret','exit','trap','brkpt'): continue
    ops = []
    ok = True
    for ro in r.operands:
        if ro.spec.optional and rng.random() < .5: break
        o = operand(ro)
        if o is None: ok = False; break
        ops.append(o)
    if not ok: continue
    lines.append(f"{f.opcode}{'.' + '.'.join(mods) if mods else ''} {', '.join(ops)};")
decl = "\n".join(f"    .reg .{t} %{t}_<4>;" for t in REGT)
head = f".version {VERSION}\n.target {TARGET}\n.address_size 64\n.global .align 16 .b8 gvar[64];\n.visible .entry k()\n{{\n{decl}\n    .shared .align 16 .b8 svar[64];\n"
first = head.count('\n') + 1
src = head + "\n".join("    " + l for l in lines) + "\n    ret;\n}\n"
import tempfile
tmp = tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False)
tmp.write(src)
tmp.close()
p = subprocess.run(['ptxas', f'-arch={TARGET}', tmp.name, '-o', '/dev/null'], capture_output=True, text=True)
os.unlink(tmp.name)
out = p.stdout + p.stderr
ptx = {}
for m in re.finditer(r"line (\d+); (error|fatal)\s*: (.*)", out):
    ptx.setdefault(int(m.group(1)), []).append(m.group(3))
fatal = 'fatal' in out and 'Parsing error' in out
try:
    tree = parse(src, 'diff.ptx'); ds = [d for d in verify(tree, src) if d.severity == 'error']
except PtxError as e:
    ds = e.diagnostics
ours = {}
for d in ds: ours.setdefault(d.span.line, []).append(d.message)
srcl = src.split('\n')
nd = 0
for l in sorted(set(ptx) | set(ours)):
    if (l in ptx) != (l in ours):
        nd += 1
        print(f"{'PTXAS-ONLY' if l in ptx else 'OURS-ONLY '} {l}: {srcl[l-1].strip()}")
        print('      ptxas:', ptx.get(l, [''])[0][:150])
        print('      ours :', ours.get(l, [''])[0][:150])
print(f"{len(lines)} instructions, {len(ptx)} ptxas error lines, {len(ours)} ours, {nd} disagreements{' (ptxas parse fatal)' if fatal else ''}")
