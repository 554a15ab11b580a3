// The CPU decode step's kernels (pipeline/cpu_attention.py builds them; pipeline/decode_step.py
// calls them): the one-token attention over the KV cache, and the step's elementwise work fused
// into one call each (RMSNorm with its residual add, rotary with the cache write, SiLU x up).
//
// One-token attention:
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
#include <cstring>
#include <tuple>
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


// ---- the step's elementwise work, fused (float32 arithmetic, rounded to T where torch's separate
// ops round: each product and sum a bf16 op of transformers' forward is rounded once, here too) ----

constexpr int64_t kRowGrain = 8;  // rows per task: a step of a few rows runs on the calling thread

template <typename T>
inline float rnd(float x) {  // x rounded to T (round to nearest even), as a T op's output is
  if constexpr (std::is_same_v<T, float>) return x; else return static_cast<float>(static_cast<T>(x));
}

// two vectors of floats rounded to T, in place
template <typename T>
inline void rnd2(fVec& a, fVec& b) {
  if constexpr (!std::is_same_v<T, float>) std::tie(a, b) = at::vec::convert_bfloat16_float(at::vec::convert_float_bfloat16(a, b));
}

template <typename T>
inline void store2(T* p, const fVec& a, const fVec& b) {
  if constexpr (std::is_same_v<T, float>) {
    a.store(p);
    b.store(p + fVec::size());
  } else {
    at::vec::convert_float_bfloat16(a, b).store(p);
  }
}

constexpr int64_t kPair = 2 * Vectorized<float>::size();  // floats per (load, round, store) of a pair

// x (n, C) += y (when given), rounded to T; returns w * rms_norm(x), transformers' LlamaRMSNorm:
// x in float32 times rsqrt(mean(x^2) + eps), rounded to T, times the weight, rounded to T.
template <typename T>
void add_rms_kernel(T* x, const T* y, const T* w, T* out, int64_t n, int64_t C, float eps) {
  at::parallel_for(0, n, kRowGrain, [&](int64_t begin, int64_t end) {
    std::vector<float> xf(C);
    for (int64_t r = begin; r < end; ++r) {
      T* xr = x + r * C;
      const T* yr = y ? y + r * C : nullptr;
      fVec acc(0.f);
      int64_t i = 0;
      for (; i + kPair <= C; i += kPair) {
        fVec a = to_float(xr + i), b = to_float(xr + i + fVec::size());
        if (yr) {
          a = a + to_float(yr + i);
          b = b + to_float(yr + i + fVec::size());
          rnd2<T>(a, b);
          store2(xr + i, a, b);
        }
        a.store(xf.data() + i);
        b.store(xf.data() + i + fVec::size());
        acc = at::vec::fmadd(a, a, acc);
        acc = at::vec::fmadd(b, b, acc);
      }
      float ss = hsum(acc);
      for (; i < C; ++i) {
        float v = static_cast<float>(xr[i]);
        if (yr) {
          v = rnd<T>(v + static_cast<float>(yr[i]));
          xr[i] = static_cast<T>(v);
        }
        xf[i] = v;
        ss += v * v;
      }
      const float inv = 1.f / std::sqrt(ss / static_cast<float>(C) + eps);
      T* o = out + r * C;
      i = 0;
      for (; i + kPair <= C; i += kPair) {
        fVec a = fVec::loadu(xf.data() + i) * fVec(inv), b = fVec::loadu(xf.data() + i + fVec::size()) * fVec(inv);
        rnd2<T>(a, b);
        store2(o + i, a * to_float(w + i), b * to_float(w + i + fVec::size()));
      }
      for (; i < C; ++i) o[i] = static_cast<T>(rnd<T>(xf[i] * inv) * static_cast<float>(w[i]));
    }
  });
}

// h (n, (H + 2 KVH) D): q, k, v of each row. q and k rotated, transformers' apply_rotary_pos_emb
// (x * cos + rotate_half(x) * sin, each product and the sum rounded to T; sin with its first half
// negated: rotate_half(x) * sin == roll(x, D/2) * that sine); k and v written into the cache
// (slots, KVH, room, D) at row r's slot r, position pos[r]; q into q_out (n, H, D).
template <typename T>
void rope_write_kernel(const T* h, const T* cos, const T* sin, T* kc, T* vc, const int64_t* pos, T* q_out,
                       int64_t n, int64_t H, int64_t KVH, int64_t D, int64_t room) {
  const int64_t half = D / 2, width = (H + 2 * KVH) * D;
  at::parallel_for(0, n, kRowGrain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* hr = h + r * width;
      const T *c = cos + r * D, *s = sin + r * D;
      for (int64_t j = 0; j < H + KVH; ++j) {
        const T* x = hr + j * D;
        T* o = j < H ? q_out + (r * H + j) * D : kc + ((r * KVH + (j - H)) * room + pos[r]) * D;
        int64_t i = 0;
        if (half % kPair == 0) {
          for (; i < D; i += kPair) {
            const T* xr = x + (i < half ? i + half : i - half);  // roll(x, D/2)
            fVec a = to_float(x + i) * to_float(c + i), b = to_float(x + i + fVec::size()) * to_float(c + i + fVec::size());
            fVec ra = to_float(xr) * to_float(s + i), rb = to_float(xr + fVec::size()) * to_float(s + i + fVec::size());
            rnd2<T>(a, b);
            rnd2<T>(ra, rb);
            store2(o + i, a + ra, b + rb);
          }
        }
        for (; i < D; ++i) {
          const float xr = static_cast<float>(x[i < half ? i + half : i - half]);
          o[i] = static_cast<T>(rnd<T>(static_cast<float>(x[i]) * static_cast<float>(c[i])) +
                                rnd<T>(xr * static_cast<float>(s[i])));
        }
      }
      for (int64_t j = 0; j < KVH; ++j)
        std::memcpy(vc + ((r * KVH + j) * room + pos[r]) * D, hr + (H + KVH + j) * D, D * sizeof(T));
    }
  });
}

// h (n, 2 I): gate, then up; out (n, I) = silu(gate), rounded to T, times up, rounded to T.
template <typename T>
void silu_mul_kernel(const T* h, T* out, int64_t n, int64_t I) {
  at::parallel_for(0, n, kRowGrain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T *g = h + r * 2 * I, *u = g + I;
      T* o = out + r * I;
      int64_t i = 0;
      for (; i + kPair <= I; i += kPair) {
        fVec a = to_float(g + i), b = to_float(g + i + fVec::size());
        a = a / (fVec(1.f) + a.neg().exp());
        b = b / (fVec(1.f) + b.neg().exp());
        rnd2<T>(a, b);
        store2(o + i, a * to_float(u + i), b * to_float(u + i + fVec::size()));
      }
      for (; i < I; ++i) {
        const float x = static_cast<float>(g[i]);
        o[i] = static_cast<T>(rnd<T>(x / (1.f + std::exp(-x))) * static_cast<float>(u[i]));
      }
    }
  });
}

// ---- sampling: softmax(logits / T) and the inverse-CDF pick of pipeline.streams.pick, per row in
// one task (the logits read twice, the probabilities kept in a buffer the size of the vocabulary) ----

constexpr int64_t kBlock = 256;  // pipeline.streams.BLOCK

// logits (n, V); u (n,) the rows' uniforms; ids (n,) and logp (n,): the token drawn and the log of
// its probability. The rule of streams.pick: the first token whose cumulative probability exceeds
// u x the total (the total's own rounding kept out of reach), found by blocks of kBlock tokens,
// never a token of probability 0.
template <typename T>
void sample_pick_kernel(const T* logits, const float* u, int64_t* ids, float* logp, int64_t n, int64_t V,
                        float temperature) {
  const int64_t NB = (V + kBlock - 1) / kBlock;
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> p(NB * kBlock, 0.f), cdf(NB);
    for (int64_t r = begin; r < end; ++r) {
      std::fill(p.begin() + V, p.end(), 0.f);  // the padding past V: 0 for every row (a NaN row writes NaN there)
      const T* x = logits + r * V;
      const fVec tv(temperature);
      fVec mv(-INFINITY);
      int64_t i = 0;
      for (; i + fVec::size() <= V; i += fVec::size()) {
        const fVec z = to_float(x + i) / tv;
        z.store(p.data() + i);
        mv = at::vec::maximum(mv, z);
      }
      float m = at::vec::vec_reduce_all<float>([](fVec& a, fVec& b) { return at::vec::maximum(a, b); }, mv);
      for (; i < V; ++i) {
        p[i] = static_cast<float>(x[i]) / temperature;
        m = std::max(m, p[i]);
      }
      fVec sv(0.f);
      i = 0;
      for (; i + fVec::size() <= V; i += fVec::size()) {
        const fVec e = (fVec::loadu(p.data() + i) - fVec(m)).exp();
        e.store(p.data() + i);
        sv = sv + e;
      }
      float s = hsum(sv);
      for (; i < V; ++i) {
        p[i] = std::exp(p[i] - m);
        s += p[i];
      }
      const float inv = 1.f / s;
      float run = 0.f;
      for (int64_t b = 0; b < NB; ++b) {
        fVec bv(0.f);
        for (int64_t j = b * kBlock; j < (b + 1) * kBlock; j += fVec::size()) {
          const fVec q = fVec::loadu(p.data() + j) * fVec(inv);
          q.store(p.data() + j);
          bv = bv + q;
        }
        run += hsum(bv);
        cdf[b] = run;
      }
      const float total = cdf[NB - 1];
      const float target = std::min(u[r] * total, std::nextafter(total, 0.f));
      int64_t b = 0;
      while (b < NB - 1 && !(cdf[b] > target)) ++b;
      const float before = b > 0 ? cdf[b - 1] : 0.f;
      const float* blk = p.data() + b * kBlock;
      int64_t last = kBlock - 1;
      while (last > 0 && !(blk[last] > 0.f)) --last;
      float c = 0.f;
      int64_t j = 0;
      for (; j < kBlock; ++j) {
        c += blk[j];
        if (c + before > target) break;
      }
      const int64_t id = b * kBlock + std::min(j, last);
      ids[r] = id;
      logp[r] = std::log(p[id]);
    }
  });
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

#define RLAIF_DISPATCH(x, NAME, ...)                                                                     \
  if ((x).scalar_type() == at::kBFloat16) { using T = at::BFloat16; __VA_ARGS__; }                   \
  else if ((x).scalar_type() == at::kFloat) { using T = float; __VA_ARGS__; }                       \
  else TORCH_CHECK(false, NAME ": float32 or bfloat16, not ", (x).scalar_type());

torch::Tensor add_rms_norm(torch::Tensor x, std::optional<torch::Tensor> y, torch::Tensor w, double eps) {
  TORCH_CHECK(x.dim() == 2 && x.is_contiguous(), "add_rms_norm: x (n, C) contiguous");
  TORCH_CHECK(w.dim() == 1 && w.size(0) == x.size(1) && w.is_contiguous() && w.scalar_type() == x.scalar_type(),
              "add_rms_norm: weight (C,) of x's dtype");
  if (y) TORCH_CHECK(y->sizes() == x.sizes() && y->is_contiguous() && y->scalar_type() == x.scalar_type(),
                     "add_rms_norm: y like x");
  auto out = torch::empty_like(x);
  RLAIF_DISPATCH(x, "add_rms_norm", add_rms_kernel<T>(x.data_ptr<T>(), y ? y->data_ptr<T>() : nullptr, w.data_ptr<T>(),
                                                      out.data_ptr<T>(), x.size(0), x.size(1), (float)eps))
  return out;
}

torch::Tensor rope_write(torch::Tensor h, torch::Tensor cos, torch::Tensor sin, torch::Tensor kc, torch::Tensor vc,
                         torch::Tensor pos, int64_t heads) {
  TORCH_CHECK(kc.dim() == 4 && kc.is_contiguous() && vc.is_contiguous() && vc.sizes() == kc.sizes(),
              "rope_write: the cache's k and v (slots, KVH, room, D) contiguous");
  const int64_t n = h.size(0), KVH = kc.size(1), room = kc.size(2), D = kc.size(3);
  TORCH_CHECK(h.dim() == 2 && h.is_contiguous() && h.size(1) == (heads + 2 * KVH) * D, "rope_write: h (n, (H + 2 KVH) D) contiguous");
  TORCH_CHECK(cos.sizes() == sin.sizes() && cos.dim() == 2 && cos.size(0) == n && cos.size(1) == D && cos.is_contiguous()
              && sin.is_contiguous(), "rope_write: cos and sin (n, D) contiguous");
  TORCH_CHECK(D % 2 == 0 && kc.size(0) >= n, "rope_write: shapes");
  TORCH_CHECK(pos.scalar_type() == at::kLong && pos.is_contiguous() && pos.numel() == n, "rope_write: pos int64 (n,)");
  for (auto t : {cos, sin, kc, vc}) TORCH_CHECK(t.scalar_type() == h.scalar_type(), "rope_write: one dtype");
  const int64_t* pp = pos.data_ptr<int64_t>();
  for (int64_t r = 0; r < n; ++r)
    TORCH_CHECK(pp[r] >= 0 && pp[r] < room, "rope_write: row ", r, " at position ", pp[r], " outside the cache's ", room);
  auto q = torch::empty({n, heads, D}, h.options());
  RLAIF_DISPATCH(h, "rope_write", rope_write_kernel<T>(h.data_ptr<T>(), cos.data_ptr<T>(), sin.data_ptr<T>(), kc.data_ptr<T>(),
                                                       vc.data_ptr<T>(), pp, q.data_ptr<T>(), n, heads, KVH, D, room))
  return q;
}

torch::Tensor silu_mul(torch::Tensor h) {
  TORCH_CHECK(h.dim() == 2 && h.is_contiguous() && h.size(1) % 2 == 0, "silu_mul: h (n, 2 I) contiguous");
  auto out = torch::empty({h.size(0), h.size(1) / 2}, h.options());
  RLAIF_DISPATCH(h, "silu_mul", silu_mul_kernel<T>(h.data_ptr<T>(), out.data_ptr<T>(), h.size(0), h.size(1) / 2))
  return out;
}

std::tuple<torch::Tensor, torch::Tensor> sample_pick(torch::Tensor logits, double temperature, torch::Tensor u) {
  TORCH_CHECK(logits.dim() == 2 && logits.is_contiguous(), "sample_pick: logits (n, V) contiguous");
  TORCH_CHECK(u.scalar_type() == at::kFloat && u.is_contiguous() && u.numel() == logits.size(0), "sample_pick: u float32 (n,)");
  TORCH_CHECK(temperature > 0, "sample_pick: temperature > 0");
  auto ids = torch::empty({logits.size(0)}, logits.options().dtype(at::kLong));
  auto logp = torch::empty({logits.size(0)}, logits.options().dtype(at::kFloat));
  RLAIF_DISPATCH(logits, "sample_pick", sample_pick_kernel<T>(logits.data_ptr<T>(), u.data_ptr<float>(), ids.data_ptr<int64_t>(),
                                                              logp.data_ptr<float>(), logits.size(0), logits.size(1), (float)temperature))
  return {ids, logp};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("sample_pick", &sample_pick, "softmax(logits / T) and streams.pick's inverse-CDF draw at u: (ids, logprobs)");
  m.def("one_token_attention", &one_token_attention, "one-token attention over the decode loop's KV cache");
  m.def("add_rms_norm", &add_rms_norm, "x += y (in place, when y is given), then w * rms_norm(x)",
        py::arg("x"), py::arg("y"), py::arg("w"), py::arg("eps"));
  m.def("rope_write", &rope_write, "q and k rotated, k and v written into the cache; returns q");
  m.def("silu_mul", &silu_mul, "silu(gate) * up of a fused gate_up output");
}
