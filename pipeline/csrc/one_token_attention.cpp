// One-token attention over the decode loop's KV cache on the CPU (pipeline/cpu_attention.py).
//
// q (n, H, D) with any row stride; k, v (slots, KVH, room, D) contiguous: the cache as it lies;
// row r attends to its keys [0, pos[r]]; query head h reads key/value head h / G (G = H / KVH,
// transformers' repeat_kv). Scores, softmax and the weighted sum of values all in float32; the
// output (n, H, D) in q's dtype. One task per (row, key/value head): its G query heads read each key
// and value once, held in registers (G x D floats), so a step reads the cache once.
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <cmath>
#include <vector>

namespace {

using at::vec::Vectorized;
using fVec = Vectorized<float>;

template <typename T>
inline fVec to_float(const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    return fVec::loadu(p);
  } else {
    fVec out;
    at::vec::load_to_float<T>(p, out);
    return out;
  }
}

inline float hsum(const fVec& v) {
  return at::vec::vec_reduce_all<float>([](fVec& a, fVec& b) { return a + b; }, v);
}

template <typename T, int D, int G>
void attend_kernel(const T* q, int64_t q_stride, const T* k, const T* v, const int64_t* pos, T* out,
                   int64_t n, int64_t kv_heads, int64_t room, float scale) {
  constexpr int C = D / fVec::size();
  const int64_t H = kv_heads * G;
  at::parallel_for(0, n * kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> s;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t r = t / kv_heads, h = t % kv_heads, L = pos[r] + 1;
      s.resize(G * L);
      const T* kb = k + (r * kv_heads + h) * room * D;
      const T* vb = v + (r * kv_heads + h) * room * D;
      fVec qv[G][C];
      for (int g = 0; g < G; ++g)
        for (int c = 0; c < C; ++c)
          qv[g][c] = to_float(q + r * q_stride + (h * G + g) * D + c * fVec::size()) * fVec(scale);
      float mx[G];
      for (int g = 0; g < G; ++g) mx[g] = -INFINITY;
      for (int64_t j = 0; j < L; ++j) {
        fVec kj[C];
        for (int c = 0; c < C; ++c) kj[c] = to_float(kb + j * D + c * fVec::size());
        for (int g = 0; g < G; ++g) {
          fVec a = qv[g][0] * kj[0];
          for (int c = 1; c < C; ++c) a = at::vec::fmadd(qv[g][c], kj[c], a);
          const float x = hsum(a);
          s[g * L + j] = x;
          mx[g] = x > mx[g] ? x : mx[g];
        }
      }
      float inv[G];
      for (int g = 0; g < G; ++g) {
        float* sg = s.data() + g * L;
        const fVec m(mx[g]);
        fVec acc(0.f);
        int64_t j = 0;
        for (; j + fVec::size() <= L; j += fVec::size()) {
          const fVec e = (fVec::loadu(sg + j) - m).exp_u20();
          e.store(sg + j);
          acc = acc + e;
        }
        float sum = hsum(acc);
        for (; j < L; ++j) {
          sg[j] = std::exp(sg[j] - mx[g]);
          sum += sg[j];
        }
        inv[g] = 1.f / sum;
      }
      fVec o[G][C];
      for (int g = 0; g < G; ++g)
        for (int c = 0; c < C; ++c) o[g][c] = fVec(0.f);
      for (int64_t j = 0; j < L; ++j) {
        fVec vj[C];
        for (int c = 0; c < C; ++c) vj[c] = to_float(vb + j * D + c * fVec::size());
        for (int g = 0; g < G; ++g) {
          const fVec p(s[g * L + j]);
          for (int c = 0; c < C; ++c) o[g][c] = at::vec::fmadd(p, vj[c], o[g][c]);
        }
      }
      for (int g = 0; g < G; ++g) {
        T* og = out + (r * H + h * G + g) * D;
        float buf[D];
        for (int c = 0; c < C; ++c) (o[g][c] * fVec(inv[g])).store(buf + c * fVec::size());
        for (int i = 0; i < D; ++i) og[i] = static_cast<T>(buf[i]);
      }
    }
  });
}

template <typename T, int D>
void by_group(int64_t G, const T* q, int64_t qs, const T* k, const T* v, const int64_t* pos, T* out,
              int64_t n, int64_t kvh, int64_t room, float scale) {
  switch (G) {
    case 1: return attend_kernel<T, D, 1>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 2: return attend_kernel<T, D, 2>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 3: return attend_kernel<T, D, 3>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 4: return attend_kernel<T, D, 4>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 5: return attend_kernel<T, D, 5>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 6: return attend_kernel<T, D, 6>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 7: return attend_kernel<T, D, 7>(q, qs, k, v, pos, out, n, kvh, room, scale);
    case 8: return attend_kernel<T, D, 8>(q, qs, k, v, pos, out, n, kvh, room, scale);
  }
  TORCH_CHECK(false, "one_token_attention: ", G, " query heads per key/value head (1 to 8 supported)");
}

template <typename T>
void dispatch(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& pos,
              torch::Tensor& out, double scale) {
  const int64_t n = q.size(0), D = q.size(2), kvh = k.size(1), G = q.size(1) / kvh, room = k.size(2);
  const T *qp = q.data_ptr<T>(), *kp = k.data_ptr<T>(), *vp = v.data_ptr<T>();
  const int64_t* pp = pos.data_ptr<int64_t>();
  for (int64_t r = 0; r < n; ++r)
    TORCH_CHECK(pp[r] >= 0 && pp[r] < room, "one_token_attention: row ", r, " at position ", pp[r], " outside the cache's ", room);
  T* op = out.data_ptr<T>();
  if (D == 16) return by_group<T, 16>(G, qp, q.stride(0), kp, vp, pp, op, n, kvh, room, (float)scale);
  if (D == 64) return by_group<T, 64>(G, qp, q.stride(0), kp, vp, pp, op, n, kvh, room, (float)scale);
  if (D == 128) return by_group<T, 128>(G, qp, q.stride(0), kp, vp, pp, op, n, kvh, room, (float)scale);
  TORCH_CHECK(false, "one_token_attention: head_dim ", D, " (16, 64 and 128 supported)");
}

}  // namespace

torch::Tensor one_token_attention(torch::Tensor q, torch::Tensor k, torch::Tensor v, torch::Tensor pos, double scale) {
  TORCH_CHECK(q.dim() == 3 && k.dim() == 4 && v.sizes() == k.sizes(), "one_token_attention: q (n, H, D), k and v (slots, KVH, room, D)");
  TORCH_CHECK(q.stride(2) == 1 && q.stride(1) == q.size(2), "one_token_attention: q's heads must lie contiguously in a row");
  TORCH_CHECK(k.is_contiguous() && v.is_contiguous() && pos.is_contiguous(), "one_token_attention: k, v and pos contiguous");
  TORCH_CHECK(k.scalar_type() == q.scalar_type() && v.scalar_type() == q.scalar_type(), "one_token_attention: q, k, v of one dtype");
  TORCH_CHECK(pos.scalar_type() == at::kLong && pos.numel() == q.size(0), "one_token_attention: pos int64 (n,)");
  TORCH_CHECK(q.size(1) % k.size(1) == 0 && k.size(3) == q.size(2) && k.size(0) >= q.size(0), "one_token_attention: shapes");
  auto out = torch::empty({q.size(0), q.size(1), q.size(2)}, q.options());
  if (q.scalar_type() == at::kBFloat16) dispatch<at::BFloat16>(q, k, v, pos, out, scale);
  else if (q.scalar_type() == at::kFloat) dispatch<float>(q, k, v, pos, out, scale);
  else TORCH_CHECK(false, "one_token_attention: float32 or bfloat16, not ", q.scalar_type());
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("one_token_attention", &one_token_attention, "one-token attention over the decode loop's KV cache");
}
