#pragma once
// Division by a divisor fixed before a kernel starts, as a multiply and a
// shift (Granlund & Montgomery, "Division by invariant integers using
// multiplication", 1994): on GPUs a 32-bit integer division is a ~20
// instruction sequence, which per-thread index arithmetic pays at every point.
// Exact for dividends 0 <= n < 2^31 and divisors 1 <= d < 2^31.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>

namespace tessera {

class FastDiv {
 public:
  FastDiv() = default;
  explicit FastDiv(int divisor) : d_(divisor) {
    if (divisor < 1) throw std::invalid_argument("tessera::FastDiv: the divisor must be positive");
    int l = 0;  // ceil(log2 d)
    while ((std::uint64_t(1) << l) < std::uint64_t(divisor)) ++l;
    shift_ = 32 + l;
    mult_ = (std::uint64_t(1) << shift_) / std::uint64_t(divisor) + 1;  // < 2^33: n * mult_ < 2^64
  }
  KOKKOS_FORCEINLINE_FUNCTION int quotient(int n) const { return int((std::uint64_t(n) * mult_) >> shift_); }
  KOKKOS_FORCEINLINE_FUNCTION int divisor() const { return d_; }

 private:
  std::uint64_t mult_ = (std::uint64_t(1) << 32) + 1;
  int shift_ = 32, d_ = 1;
};

}  // namespace tessera
