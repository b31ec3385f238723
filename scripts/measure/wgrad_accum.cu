/* wgrad_accum.cu — what accumulating a weight gradient into an fp32 buffer
 * costs a GEMM (Megatron-Core's gradient_accumulation_fusion, Transformer
 * Engine's fuse_wgrad_accumulation: the weight-gradient GEMM's C and D are
 * main_grad, fp32, beta 1), against the same GEMM writing a bf16 result, as
 * the measured tables time it.
 *
 * dW (M x N) = X^T (M x T) dY (T x N): M = a layer's input width, N its
 * output width, T the micro-batch's tokens. cuBLASLt, column-major, TN (the
 * layout FP8 GEMMs need on Hopper):
 *   fp8  A e4m3, B e5m2 (TE's hybrid format: activations e4m3, gradients
 *        e5m2), per-tensor scales, fp32 accumulation, D bf16 (beta 0) |
 *        C = D bf16 main_grad (beta 1: Megatron's grad_reduce_in_fp32 off) |
 *        D fp32 (beta 0) | C = D fp32 main_grad (beta 1)
 *   bf16 A, B bf16, D bf16 (beta 0) | C = D bf16 (beta 1) | C = D fp32 (beta 1)
 * Each the median of 20 CUDA-event timings after 5 warm-ups of the
 * heuristic's first algorithm (as the frameworks take it), the mean of two
 * passes over the five (in order, then reversed). Prints CSV:
 *   m,n,t,dtype,out,beta,time_us,tflops
 * Build and run on the device (not part of weft's build):
 *   nvcc -O2 -std=c++17 -o wgrad_accum scripts/measure/wgrad_accum.cu -lcublasLt
 *   ./wgrad_accum > h100_wgrad_accum.csv */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)
#define LK(x)                                                                        \
  do {                                                                               \
    cublasStatus_t s_ = (x);                                                         \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                               \
      fprintf(stderr, "%s:%d: cublas status %d\n", __FILE__, __LINE__, (int)s_);    \
      return -1.0;                                                                   \
    }                                                                                \
  } while (0)

static cublasLtHandle_t g_lt;
static void *g_ws;
static const size_t WS = 32u << 20;

/* fill n bytes with small random values of the type (bytes of a uniform
 * random bf16 / e4m3 / e5m2 number in [-1, 1)) */
__global__ void fill(unsigned char *p, size_t n, int kind, unsigned seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)(i * 2654435761u) ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    float v = (h & 0xffff) / 32768.0f - 1.0f;
    if (kind == 0) { /* bf16: two bytes per element, i counts elements */
      ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
    } else if (kind == 1) {
      __nv_fp8_e4m3 x(v);
      p[i] = *(unsigned char *)&x;
    } else if (kind == 2) {
      __nv_fp8_e5m2 x(v);
      p[i] = *(unsigned char *)&x;
    } else { /* fp32 */
      ((float *)p)[i] = v;
    }
  }
}

static void *alloc_fill(size_t elems, int kind, unsigned seed) {
  size_t bytes = elems * (kind == 0 ? 2 : kind == 3 ? 4 : 1);
  void *p;
  CK(cudaMalloc(&p, bytes));
  fill<<<1024, 256>>>((unsigned char *)p, elems, kind, seed);
  CK(cudaGetLastError());
  return p;
}

/* One GEMM D = alpha op(A) op(B) + beta C, TN, timed; -1 when refused. */
static double gemm_us(int m, int n, int t, int fp8, cudaDataType_t dt, float beta, void *A, void *B,
                      void *C) {
  cublasLtMatmulDesc_t op;
  cudaDataType_t at = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF, bt = fp8 ? CUDA_R_8F_E5M2 : CUDA_R_16BF;
  LK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  LK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  LK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  static float *one;
  if (!one) {
    float h = 1.0f;
    CK(cudaMalloc(&one, sizeof(float)));
    CK(cudaMemcpy(one, &h, sizeof h, cudaMemcpyHostToDevice));
  }
  if (fp8) {
    LK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &one, sizeof one));
    LK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &one, sizeof one));
  }
  cublasLtMatrixLayout_t la, lb, lc;
  LK(cublasLtMatrixLayoutCreate(&la, at, t, m, t)); /* A: t x m, lda t, transposed -> m x t */
  LK(cublasLtMatrixLayoutCreate(&lb, bt, t, n, t)); /* B: t x n */
  LK(cublasLtMatrixLayoutCreate(&lc, dt, m, n, m));
  cublasLtMatmulPreference_t pref;
  LK(cublasLtMatmulPreferenceCreate(&pref));
  size_t ws = WS;
  LK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t res;
  int got = 0;
  cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(g_lt, op, la, lb, lc, lc, pref, 1, &res, &got);
  double us = -1.0;
  if (hs == CUBLAS_STATUS_SUCCESS && got > 0) {
    float alpha = 1.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> v;
    cublasStatus_t rs = CUBLAS_STATUS_SUCCESS;
    for (int i = 0; i < 25 && rs == CUBLAS_STATUS_SUCCESS; i++) {
      CK(cudaEventRecord(e0));
      rs = cublasLtMatmul(g_lt, op, &alpha, A, la, B, lb, &beta, C, lc, C, lc, &res.algo, g_ws, WS, 0);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 5) v.push_back(ms);
    }
    if (rs == CUBLAS_STATUS_SUCCESS) {
      std::sort(v.begin(), v.end());
      us = 1e3 * v[v.size() / 2];
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  return us;
}

int main(void) {
  /* (m, n, t): weight-gradient GEMMs of the runs the FP8 tables miss most
   * (Nemotron-4 340B TP 8, GPT-3 175B TP 4, Grok-1 TP 4, Llama 3 70B TP 4 /
   * 8B TP 1 at their micro-batch tokens) and squares */
  static const int shapes[][3] = {
      {18432, 9216, 4096},  {9216, 18432, 4096}, {18432, 2688, 4096}, {2304, 18432, 4096},
      {12288, 12288, 2048}, {12288, 9216, 2048}, {3072, 12288, 2048}, {6144, 8192, 4096},
      {8192, 6144, 4096},   {6144, 2560, 4096},  {8192, 14336, 8192}, {7168, 8192, 8192},
      {4096, 28672, 8192},  {14336, 4096, 8192}, {4096, 4096, 4096},  {8192, 8192, 8192},
      /* few tokens (MoE experts): the epilogue's bytes outweigh the mainloop */
      {7168, 2048, 256},    {2048, 7168, 256},   {7168, 4096, 512},   {4096, 14336, 512},
      {6144, 8192, 1024},   {12288, 12288, 1024}};
  if (cublasLtCreate(&g_lt) != CUBLAS_STATUS_SUCCESS) return 1;
  CK(cudaMalloc(&g_ws, WS));
  printf("m,n,t,dtype,out,beta,time_us,tflops\n");
  for (auto &s : shapes) {
    int m = s[0], n = s[1], t = s[2];
    double fl = 2.0 * m * n * t;
    void *a8 = alloc_fill((size_t)t * m, 1, 1), *b8 = alloc_fill((size_t)t * n, 2, 2);
    void *a16 = alloc_fill((size_t)t * m, 0, 3), *b16 = alloc_fill((size_t)t * n, 0, 4);
    void *c32 = alloc_fill((size_t)m * n, 3, 5), *c16 = alloc_fill((size_t)m * n, 0, 6);
    CK(cudaDeviceSynchronize());
    struct {
      int fp8;
      cudaDataType_t dt;
      float beta;
      const char *name, *out;
    } runs[] = {{1, CUDA_R_16BF, 0.0f, "fp8", "bf16"},  {1, CUDA_R_16BF, 1.0f, "fp8", "bf16"},
                {1, CUDA_R_32F, 0.0f, "fp8", "fp32"},   {1, CUDA_R_32F, 1.0f, "fp8", "fp32"},
                {0, CUDA_R_16BF, 0.0f, "bf16", "bf16"}, {0, CUDA_R_16BF, 1.0f, "bf16", "bf16"},
                {0, CUDA_R_32F, 1.0f, "bf16", "fp32"}};
    const int nr = (int)(sizeof runs / sizeof runs[0]);
    double us[2][8]; /* nr <= 8 */
    for (int pass = 0; pass < 2; pass++) /* forward then reversed order: no heating bias */
      for (int j = 0; j < nr; j++) {
        int i = pass ? nr - 1 - j : j;
        us[pass][i] = gemm_us(m, n, t, runs[i].fp8, runs[i].dt, runs[i].beta,
                              runs[i].fp8 ? a8 : a16, runs[i].fp8 ? b8 : b16,
                              runs[i].dt == CUDA_R_32F ? c32 : c16);
      }
    for (int i = 0; i < nr; i++) {
      double u = us[0][i] > 0 && us[1][i] > 0 ? 0.5 * (us[0][i] + us[1][i]) : -1.0;
      printf("%d,%d,%d,%s,%s,%g,%.1f,%.1f\n", m, n, t, runs[i].name, runs[i].out, runs[i].beta, u,
             u > 0 ? fl / u / 1e6 : 0.0);
    }
    fflush(stdout);
    CK(cudaFree(a8));
    CK(cudaFree(b8));
    CK(cudaFree(a16));
    CK(cudaFree(b16));
    CK(cudaFree(c32));
    CK(cudaFree(c16));
  }
  return 0;
}
