// Step 06: 16-byte global loads and stores (float4 for float, double2 for double).
//
// What changed since 05: the width of the global instructions. A move is now one 16-byte
// vector of V = 16 / sizeof(T) consecutive elements of a row (V = 4 for float, 2 for double)
// instead of one element, so a tile row is read by 32 / V threads and the block becomes
// (32 / V) x (256 V / 32) threads: 8 x 32 for float, 16 x 16 for double. The block keeps
// step 05's 256 threads and each thread keeps step 05's bytes: one vector (16 bytes, like
// 4 floats) for float, two vectors (32 bytes, like 4 doubles) for double. On the way out a
// thread gathers V elements down a tile column (V neighbouring tile rows) and stores them as
// one vector of an output row. The loads are issued first, into registers, as in step 05.
//
// What to look for: the global side needs a quarter (float) or half (double) of step 05's
// instructions for the same sectors and the same bytes in flight. The shared side is where
// the choice is. Padded to 33 ("padded", the default), rows are no longer 16-byte aligned
// in shared memory, so a vector goes into the tile as V scalar stores; the float gather is
// conflict-free. Unpadded ("unpadded"), a vector goes into the tile with one 16-byte store,
// but the column gather of a warp hits 4 banks 8 times each: an 8-way conflict (the
// well-known float4 transpose). For double, the padded tile keeps a 2-way conflict on both
// sides: --explain shows each of these.
//
// Alignment: the 16-byte path needs both pointers 16-byte aligned and both row lengths a
// multiple of V. Otherwise (a 4099 x 8191 matrix, a pointer one element into an array) the
// variant runs its scalar fallback: step 05's 32 x 8 moves with this variant's tile layout,
// through the same kernel with V = 1.
//
// Expected effect: the same bytes in flight as step 05 with fewer instructions; whether that
// is faster is what docs/06-float4.md predicts and measures.
//
// Run:   06-float4
//        06-float4 --variant all --explain     # the 8-way conflict and its fix

#include "06-float4/float4.hpp"

#include "04-padding/padding.cuh"
#include "06-float4/float4.cuh"
#include "tiled.hpp"

namespace step06 {

using tt::Coord;

constexpr int kTile = 32;      ///< Tile side in elements.
constexpr int kThreads = 256;  ///< Threads a block, as in step 05's default.

// --- The work. ----------------------------------------------------------------------------

/// Shared-memory slot of tile element (r, c): step 04's padded slot when PADDED
/// (04-padding/padding.cuh), else rows of 32 elements.
template <bool PADDED>
TT_HD constexpr int tile_slot(int r, int c) {
  return PADDED ? step04::tile_slot<kTile>(r, c) : r * kTile + c;
}

/// Thread (x, y) moves N consecutive elements (one instruction) at columns x N .. x N + N - 1
/// of tile rows y, y + kThreadsY, ... on the way in, and of output-tile rows y, y + kThreadsY,
/// ... on the way out. N = 16 / sizeof(T) is the 16-byte path; N = 1 is its scalar fallback,
/// which is step 05's 32 x 8 threads with 4 passes.
template <bool PADDED, typename T, int N = tt::kVec16<T>>
struct Moves : tt::Work<T> {
  static constexpr int kVec = N;
  static constexpr int kThreads = step06::kThreads;
  static constexpr int kThreadsX = kTile / N;             ///< Vectors a tile row: 8, 16 or 32.
  static constexpr int kThreadsY = kThreads / kThreadsX;  ///< 32, 16 or 8.
  static constexpr int kLoadPasses = kTile / kThreadsY, kStorePasses = kTile / kThreadsY;
  static constexpr int kTileElems = kTile * (kTile + (PADDED ? 1 : 0));
  static constexpr bool kTileStoreVec = !PADDED;  // rows of 33 are not 16-byte aligned
  static tt::Launch launch(const tt::Problem& pb) {
    return tt::tile_grid(pb, kTile, dim3(kThreadsX, kThreadsY));
  }
  /// Whether the block's whole tile lies inside the matrix, so that no move needs a check.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return tt::whole_tile(me.block, kTile, rows, cols);
  }
  // LAB BEGIN 06-float4
  /// The N elements of input row 32 by + r from column 32 bx + c, into tile row r.
  TT_HD static tt::Move<N> load(const tt::Thread& me, int pass, int rows, int cols) {
    const int r = me.thread.y + pass * kThreadsY, c = me.thread.x * N;  // in the tile
    const Coord src{static_cast<int>(me.block.y) * kTile + r,
                    static_cast<int>(me.block.x) * kTile + c};
    tt::Move<N> m{tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols), {}};
    for (int k = 0; k < N; ++k) m.slot_of(k) = tile_slot<PADDED>(r, c + k);  // along a row
    return m;
  }
  /// The N elements of output row 32 bx + r from column 32 by + c: tile column r, rows c ...
  TT_HD static tt::Move<N> store(const tt::Thread& me, int pass, int rows, int cols) {
    const int r = me.thread.y + pass * kThreadsY, c = me.thread.x * N;  // in the output's tile
    const Coord dst{static_cast<int>(me.block.x) * kTile + r,
                    static_cast<int>(me.block.y) * kTile + c};
    tt::Move<N> m{tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows), {}};
    for (int k = 0; k < N; ++k) m.slot_of(k) = tile_slot<PADDED>(c + k, r);  // down a column
    return m;
  }
  // LAB END
};

// --- The variants the program offers. ----------------------------------------------------

template <class W>
using Path = tt::Path<W, transpose_vec<W>>;

/// The 16-byte path, and the scalar fallback for shapes and pointers it cannot take.
template <bool PADDED>
tt::Variant variant(const char* name, const char* summary) {
  return tt::variant<Path<Moves<PADDED, float>>, Path<Moves<PADDED, float, 1>>,
                     Path<Moves<PADDED, double>>, Path<Moves<PADDED, double, 1>>>(name, summary);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "06-float4";
    st.title = "16-byte global accesses: float4 / double2 on both sides";
    st.variants = {
        variant<true>("padded", "32 x 33 tile: conflict-free float gather, scalar shared stores"),
        variant<false>("unpadded",
                       "32 x 32 tile: 16-byte shared stores, 8-way conflict on the gather"),
    };
    st.default_variant = "padded";
    return st;
  }();
  return s;
}

}  // namespace step06
