#!/usr/bin/env python3
"""cp_merge_check.py — the memory-bound merge kernels of context parallelism's
P2P ring (docs/zoo.md, "Context parallelism") on the GPU: Transformer
Engine's LSE and output merge functions (context_parallel.py, compiled as
its jit_fuser does with torch.compile), the plain add_ and clone, on Llama 3
8B CP 2's shapes; per call the GPU time (a GEMM queue keeps the GPU ahead,
so the CPU's issue cost is hidden) and the CPU's issue time. Prints CSV
(data/measured/h100_cp_merge_check.csv: its output on an H100, 31 s).
Written compactly: it is sent as one command.
"""
import torch,time
@torch.compile
def lse_merge(l,s):
 mx=torch.max(l,s);mn=torch.min(l,s);l.copy_(mx+torch.log1p(torch.exp(mn-mx)))
@torch.compile
def out_init(o0,l,l0):
 e=torch.exp(l0-l).movedim(2,0).unsqueeze(-1);return (o0*e).to(o0.dtype)
@torch.compile
def out_merge(o,os,l,ls):
 e=torch.exp(ls-l).movedim(2,0).unsqueeze(-1);o.add_(os*e)
bf=torch.bfloat16;d="cuda";h,S=32,4096
o=torch.randn(S,1,h,128,device=d,dtype=bf);os=torch.randn_like(o)
l=torch.randn(1,h,S,device=d);ls=torch.randn_like(l)
A=torch.randn(8192,8192,device=d,dtype=bf)
print("kernel,gpu_us,host_us_per_call")
for kn,fn in (("lse_merge",lambda:lse_merge(l,ls)),("out_init",lambda:out_init(os,l,ls)),("out_merge",lambda:out_merge(o,os,l,ls)),("torch_add",lambda:o.add_(os)),("torch_clone_lse",lambda:torch.clone(l))):
 for _ in range(5):fn()
 torch.cuda.synchronize();g=[];hs=[]
 for _ in range(7):
  for _ in range(6):A@A
  a=torch.cuda.Event(enable_timing=True);b=torch.cuda.Event(enable_timing=True)
  a.record();t=time.perf_counter()
  for _ in range(10):fn()
  hs.append((time.perf_counter()-t)*1e5);b.record();b.synchronize();g.append(a.elapsed_time(b)*100)
 g.sort();hs.sort();print("%s,%.2f,%.2f"%(kn,g[3],hs[3]),flush=True)
