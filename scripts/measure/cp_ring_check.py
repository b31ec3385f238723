#!/usr/bin/env python3
"""cp_ring_check.py — the non-square kernels of context parallelism's P2P ring
(docs/zoo.md, "Context parallelism") against square ones, on the GPU: for
the ring steps of a few CP layouts (heads per TP rank, S local tokens, c =
S / 2), the S x c and c x S unmasked kernels (cuDNN's fused attention through
scaled_dot_product_attention, BF16, head width 128, batch 1) and the square
kernels at two candidate rows, each scaled to the step's FLOPs, and the
S x S causal diagonal kernel. Prints CSV (data/measured/h100_cp_ring_check.csv:
its output on an H100, 13 s). Written compactly: it is sent as one command.
"""
import torch,torch.nn.functional as F,sys
from torch.nn.attention import SDPBackend as B,sdpa_kernel as K
def T(fn):
 fn();fn();torch.cuda.synchronize();o=[]
 for _ in range(7):
  a=torch.cuda.Event(enable_timing=True);b=torch.cuda.Event(enable_timing=True);a.record()
  for _ in range(3):fn()
  b.record();b.synchronize();o.append(a.elapsed_time(b)*1e3/3)
 o.sort();return o[3]
def k(h,m,n,c=False):
 r=lambda s:torch.randn(1,h,s,128,device="cuda",dtype=torch.bfloat16,requires_grad=True)
 q,kk,v=r(m),r(n),r(n);g=torch.randn(1,h,m,128,device="cuda",dtype=torch.bfloat16)
 with K(B.CUDNN_ATTENTION):
  f=lambda:F.scaled_dot_product_attention(q,kk,v,is_causal=c)
  def bo():F.scaled_dot_product_attention(q,kk,v,is_causal=c).backward(g)
  tf=T(f);tb=T(bo)-tf
 return tf,tb
C={}
def sq(h,s):
 h=max(1,int(round(h)))
 if (h,s) not in C:C[(h,s)]=k(h,s,s)
 return h,C[(h,s)]
print("case,step,pass,heads,m,n,measured_us,weft_row,weft_row_us,plain_row,plain_row_us")
for nm,a,S in (("8b-cp2",32,4096),("70b-cp2",16,4096),("cp4-8k",32,2048),("cp16-128k",16,8192)):
 c=S//2
 for st,m,n in (("last",S,c),("first",c,S)):
  tf,tb=k(a,m,n)
  for p,t in (("fwd",tf),("bwd",tb)):
   w=p=="bwd";s,bh=(m,a*n/m) if w else (n,a*m/n);bh,x=sq(bh,s);wt=x[w]*a*m*n/(bh*s*s)
   pb,y=sq(a,n);pt=y[w]*a*m*n/(pb*n*n)
   print("%s,%s,%s,%d,%d,%d,%.2f,s%d bh%d,%.2f,s%d bh%d,%.2f"%(nm,st,p,a,m,n,t,s,bh,wt,n,pb,pt),flush=True)
 dt=k(a,S,S,True);print("%s,diag,fwd/bwd causal,%d,%d,%d,%.2f/%.2f,,,,"%(nm,a,S,S,dt[0],dt[1]),flush=True)
