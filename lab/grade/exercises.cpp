// The lab's exercises as data: what each asks, the variants and accesses graded, the speed
// bar and its reason, and the points of each part.
#include <utility>

#include "grader.hpp"

namespace lab {

/// Every access of @p variant in both element types.
std::vector<Target> all_accesses(const std::string& variant,
                                 std::vector<tt::DType> dtypes = {f32, f64}) {
  std::vector<Target> t;
  for (tt::DType d : dtypes)
    for (auto [s, o] : {std::pair{global, load}, {shared, store}, {shared, load}, {global, store}})
      t.push_back({variant, d, s, o});
  return t;
}

template <typename... V>
std::vector<Target> join(V... parts) {
  std::vector<Target> all;
  (all.insert(all.end(), parts.begin(), parts.end()), ...);
  return all;
}

// The bars: each is a share of a kernel measured in the same run on the same GPU that the model
// answer cleared with a margin on an NVIDIA H100 and on an NVIDIA H200 (docs/results/h100/ and
// h200/, the lab part of gpu-check; docs/lab.md has them all), and that the step before it,
// or the unsolved exercise, did not. A share of cudaMemcpy where the lesson is bandwidth; a
// share of another variant of the step where the lesson is a difference between the two.
const std::vector<Exercise>& exercises() {
  static const std::vector<Exercise> all = {
      {"02-naive",
       "one thread per element, with the warps writing along output rows",
       "WriteRows' load() and store()",
       {"write-coalesced"},
       {{"write-coalesced", f32, global, store}, {"write-coalesced", f64, global, store}},
       "",
       // Measured against read-coalesced, which differs from it only in which side is
       // coalesced: its share of cudaMemcpy differs between the H100 and the H200.
       {"write-coalesced",
        {8192, 8192},
        f32,
        200.0,
        "the model answer clears it on the H100 and the H200: docs/lab.md has its figures",
        "read-coalesced"},
       {4, 2, 0, 2, 2}},
      {"03-shared",
       "a 32 x 32 tile in shared memory, so that both global sides are coalesced",
       "TileMoves' load() and store() (step 04 runs them too)",
       {"tile-32x32"},
       {{"tile-32x32", f32, global, load},
        {"tile-32x32", f32, global, store},
        {"tile-32x32", f64, global, load},
        {"tile-32x32", f64, global, store},
        {"tile-32x32", f32, shared, store, false},
        {"tile-32x32", f32, shared, load, false}},
       "",
       {"tile-32x32",
        {8192, 8192},
        f32,
        20.0,
        "the model answer clears it on the H100 and the H200, where the 32-way conflict of "
        "its column read, not the memory, sets its speed: docs/lab.md has its figures",
        ""},
       {4, 2, 0, 2, 2}},
      {"04-padding",
       "a tile layout whose column read is free of bank conflicts",
       "tile_slot()",
       {"pad-32x33", "pad-16x17"},
       all_accesses("pad-32x33"),
       "",
       {"pad-32x33",
        {8192, 8192},
        f32,
        38.0,
        "the model answer clears it on the H100 and the H200, step 03's layout does not: "
        "docs/lab.md has their figures",
        ""},
       {2, 4, 0, 2, 2},
       "03-shared"},  // its kernels run step 03's moves with this layout: they run your moves
      {"05-multi-element",
       "four elements a thread, all of its loads issued before its first shared store",
       "load_phase() (part 2), with Multi's load() and store() (part 1) written for you",
       {"elements-1", "elements-2", "elements-4", "elements-8"},
       join(all_accesses("elements-1"), all_accesses("elements-2"), all_accesses("elements-4"),
            all_accesses("elements-8")),
       "machine-code",
       {"elements-4",
        {8192, 8192},
        f32,
        75.0,
        "the model answer clears it on the H100 and the H200, one element a thread does "
        "not: docs/lab.md has their figures",
        ""},
       {2, 1, 3, 2, 2},
       "04-padding"},  // its tile is step 04's: it runs your tile_slot()
      {"06-float4",
       "16-byte moves: the tile slots of a vector's elements, on the way in and out",
       "the tile slots in Moves' load() and store()",
       {"padded", "unpadded"},
       // The padded tile keeps a 2-way conflict for double by design (docs/06-float4.md).
       join(all_accesses("padded", {f32}), std::vector<Target>{{"padded", f64, global, load},
                                                               {"padded", f64, global, store},
                                                               {"unpadded", f32, global, load},
                                                               {"unpadded", f32, shared, store},
                                                               {"unpadded", f32, global, store},
                                                               {"unpadded", f64, global, load},
                                                               {"unpadded", f64, shared, store},
                                                               {"unpadded", f64, global, store}}),
       "",
       {"padded",
        {8192, 8192},
        f32,
        75.0,
        "the model answer clears it on the H100 and the H200: docs/lab.md has its figures",
        ""},
       {3, 3, 0, 2, 2},
       "04-padding"},  // its padded tile is step 04's: it runs your tile_slot()
      {"07-swizzle",
       "an XOR-swizzled dense tile: 16-byte shared stores and conflict-free gathers",
       "swizzle()",
       {"tile64", "tile64-256", "tile32", "scalar"},
       join(all_accesses("tile64"), all_accesses("tile64-256"), all_accesses("tile32"),
            all_accesses("scalar")),
       "swizzle",
       // At 4099 x 8191 the rows are not whole vectors, and tile64 runs its scalar path,
       // whose column reads a dense tile puts in one bank; on the 16-byte path at 8192 x 8192
       // the conflict of the unswizzled tile measured no slower than the model answer.
       {"tile64",
        {4099, 8191},
        f32,
        60.0,
        "the model answer clears it on the H100 and the H200, where this shape takes the "
        "scalar path: docs/lab.md has its figures",
        ""},
       {2, 2, 2, 2, 2}},
      {"08-diagonal",
       "column order: the blocks that run together write the same output rows",
       "column_block()",
       {"column"},
       {},
       "order",
       // Measured against row order, which differs from it only in the order: a share of
       // cudaMemcpy that separates the two on an H100 does not on an H200 (docs/lab.md).
       {"column",
        {4099, 8191},
        f32,
        106.0,
        "the model answer clears it on the H100 and the H200: docs/lab.md has its figures; "
        "it runs your step 07 swizzle too",
        "row"},
       {2, 0, 4, 2, 2},
       "07-swizzle"},  // its kernels are step 07's with a block order: they run your swizzle
  };
  return all;
}

}  // namespace lab
