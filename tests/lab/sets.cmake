# The proof that the lab's grader grades (lab/CMakeLists.txt, .ci/run): each set is one lab
# build, -DTT_LAB=ON -DTT_LAB_PROOF=<set>, of the submissions it lists,
#
#   "<exercise>|<submission>|<CPU parts that must fail>|<GPU parts that must fail>[|<says>]"
#
# where the submission is `start` (the exercise as a student gets it, lab/start/), `model`
# (the model answer, failing for another exercise's sake), or a file of wrong answers in
# tests/lab/wrong/ (the regions it replaces, each with the mistake its first line names), the
# parts are the grader's (lab/grade/, comma-separated), and <says> is a regular expression the
# grade of the CPU parts must print. Every
# exercise a set leaves out is built from the model answer and must pass its CPU parts.
# The GPU parts named here fail for certain (a wrong transpose fails on any GPU); what the
# speed bars do with the other submissions is measured, not asserted.

# Every exercise unsolved. 04, 05, 07 and 08 start from code that is exact and slow (step 03's
# layout, one load in flight a thread, step 06's dense tile, row order): their analysis,
# machine-code or order part fails them (05's analysis too: its kernels run 04's layout).
set(tt_lab_set_unsolved
    "02-naive|start|emulated,analysis|gpu-exact"
    "03-shared|start|emulated,analysis|gpu-exact"
    "04-padding|start|analysis|"
    "05-multi-element|start|analysis,machine-code||run your 04-padding answer, which is not right yet"
    "06-float4|start|emulated,analysis|gpu-exact"
    "07-swizzle|start|analysis|"
    "08-diagonal|start|order|")

# One plausible mistake an exercise (08's: a column computed in float, right on small grids).
set(tt_lab_set_wrong-a
    "02-naive|02-copy.txt|emulated|gpu-exact"
    "03-shared|03-unguarded.txt|emulated|gpu-exact"
    "04-padding|04-conflict.txt|emulated,analysis|gpu-exact|run your 03-shared answer, which is not right yet"
    "05-multi-element|05-one-pass.txt|machine-code|gpu-exact"
    "06-float4|06-row-gather.txt|emulated|gpu-exact"
    "07-swizzle|07-conflict.txt|analysis|"
    "08-diagonal|08-float-reciprocal.txt|order||block [0-9]+ of a [0-9]+ x [0-9]+ grid")

# Another mistake for five of them; 04 and 05 are the model answers here, and 04's kernels
# run the wrong 03 (step 04 is step 03's moves with another layout): its grade says so.
set(tt_lab_set_wrong-b
    "02-naive|02-unguarded.txt|emulated|gpu-exact"
    "03-shared|03-hardcoded.txt|emulated|gpu-exact"
    "04-padding|model|emulated|gpu-exact|run your 03-shared answer, which is not right yet"
    "06-float4|06-one-slot.txt|emulated|gpu-exact"
    "07-swizzle|07-not-one-to-one.txt|swizzle,emulated|gpu-exact"
    "08-diagonal|08-hardcoded.txt|order,emulated|gpu-exact")

# The holes a first round of adversarial grading found, each with the part that catches it;
# and code that never returns (02) or crashes (08): each part that runs it fails on its own,
# stopped at its time limit or crashed in its own process, and the grader goes on.
set(tt_lab_set_wrong-c
    "02-naive|02-endless.txt|emulated,large||stopped after its time limit"
    "03-shared|03-int-offsets.txt|large||32-bit int wraps at 2\\^31"
    "04-padding|model|large||run your 03-shared answer, which is not right yet"
    "05-multi-element|05-skip-last-pass.txt|emulated|gpu-exact"
    "08-diagonal|08-crash.txt|emulated,large,order|gpu-exact|the part crashed \\(signal")

# An empty load phase, graded without cuobjdump (the machine-code part is then skipped), and
# step 08's model answer while 07 is wrong: 08's kernels run 07's swizzle, and its grade
# must say that 07 is why it fails. Offsets held in 32-bit unsigned (02): exact below 2^32
# elements, on the GPU too; the large part fails them past 2^32 and must say they wrap there.
# A layout that the device compiler computes otherwise than the host compiler (04): it passes
# every CPU part, and gpu-exact, which compares the GPU's moves with the host's, fails it.
set(tt_lab_set_wrong-d
    "02-naive|02-unsigned-offsets.txt|large||32-bit unsigned wraps at 2\\^32"
    "04-padding|04-fma-contracted.txt||gpu-exact"
    "05-multi-element|05-empty-load.txt|emulated|gpu-exact"
    "07-swizzle|07-not-one-to-one.txt|swizzle,emulated|gpu-exact"
    "08-diagonal|model|emulated|gpu-exact|run your 07-swizzle answer, which is not right yet")

# Every exercise from its model answer, through the lab's generator.
set(tt_lab_set_solved "")

# Submissions the region check (lab/check_regions.cpp) must reject before any build, each with
# the message it must give: "<submission in tests/lab/rejected/>|<exercise>|<message regex>".
set(tt_lab_rejected
    "05-static-cublas.txt|05-multi-element|an object defined outside a function"
    "05-static-cublas.txt|05-multi-element|'tt::references': the harness"
    "05-library-call.txt|05-multi-element|'cublasSgeam': a call into the CUDA runtime"
    "05-library-call.txt|05-multi-element|'cudaMemcpyAsync': a call into the CUDA runtime"
    "05-arch-split.txt|05-multi-element|a preprocessor line \\('#ifdef __CUDA_ARCH__'\\)"
    "04-namespace-escape.txt|04-padding|a '}' that closes more than the region opened"
    "04-namespace-escape.txt|04-padding|'namespace': no exercise needs it"
    "07-define.txt|07-swizzle|a preprocessor line \\('#define"
    "04-spawn.txt|04-padding|'posix_spawnp': not a name a region may use"
    "04-out-of-scope.txt|04-padding|'posix_spawnp': not a name a region may use"
    "05-harness-macro.txt|05-multi-element|'TT_CHECK_LAUNCH': not a name a region may use"
    "05-no-barrier.txt|05-multi-element|a preprocessor line \\('#define __syncthreads"
    "04-digraph.txt|04-padding|a preprocessor line \\('%:include_next"
    "04-comment-directive.txt|04-padding|a preprocessor line \\('#include"
    "04-digraph-brace.txt|04-padding|a '}' that closes more than the region opened"
    "04-continuation.txt|04-padding|a line continuation"
    "04-attribute.txt|04-padding|an attribute"
    "04-spaced-name.txt|04-padding|'tt::tutorial_steps': the harness"
    "04-crlf.txt|04-padding|a carriage return \\(Windows line endings\\)"
    "04-trigraph.txt|04-padding|a trigraph"
    "04-builtin-print.txt|04-padding|'__builtin_printf': a compiler or C library builtin"
    "04-builtin-print.txt|04-padding|'fputs': a library call"
    "04-builtin-print.txt|04-padding|'stdout': a library call")

# Legal code the region check must accept, in styles the model answers do not use (its names
# are an allow-list: these guard it against refusing a student's own declarations):
# "<file in tests/lab/accepted/>|<exercise>".
set(tt_lab_accepted
    "04-own-constant.txt|04-padding"
    "05-other-styles.txt|05-multi-element"
    "08-enum-switch.txt|08-diagonal"
    "08-make-vector.txt|08-diagonal")
