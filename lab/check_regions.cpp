// The lab's region check (lab/lab.cmake runs it before a lab build takes a student's answer):
// a region is kernel code, and this program rejects, with the file and line, what no exercise
// needs and what would let an answer run something other than the kernel it is graded as.
//
// Its names are an allow-list (read_names, below): every name a region uses must be a word of
// C++ or CUDA that kernel code needs, the kernel vocabulary, a name the step's file declares
// outside its regions, or one the region declares where that declaration is in scope. So a
// name it has never heard of is refused, and TT_HD is the only macro a region may name: what
// it checks are the names the compiler sees after preprocessing. Besides that, and with a
// message that says why for the names a student is likely to try, it rejects:
//
//   - preprocessor lines (#define, #ifdef __CUDA_ARCH__, #include ...), but `#pragma unroll`;
//   - braces or parentheses that close more than the region opened: `};` followed by a new
//     namespace or class escapes the region, and a region must close what it opens;
//   - namespace, extern, asm, friend, thread_local, new, delete, __attribute__, _Pragma;
//   - objects defined outside a function, and static objects anywhere (code that would run
//     before main, or on a kernel's first call on the host): outside a function a region
//     defines functions, types, `using` names, static_asserts and constexpr constants only,
//     and `static` is a member function's or a constexpr constant's;
//   - calls into libraries: the CUDA runtime and driver (cuda..., cu...), cuBLAS and the other
//     CUDA libraries, the C library's process, file, memory and output functions, std:: names
//     other than the fixed-width integers, min, max and size_t;
//   - the harness: a tt:: name other than the kernel vocabulary of common/kernel.hpp and
//     common/types.hpp (Thread, Move, Coord, inside, offset, ...): not the references, the
//     runner, the registry or the emulation;
//   - attributes ([[...]]), and what could hide any of the above from a check that reads the
//     text: a carriage return anywhere in the file (Windows line endings), a character that is
//     not printable ASCII, a line continuation (a backslash at a line's end), a trigraph.
//
// It reads a region as the compiler does: comments are skipped (a comment before `#` does not
// hide a directive), digraphs are their tokens (`%:` is `#`, `<%` and `%>` are braces, `<:`
// and `:>` brackets), and a name is checked with its qualification however it is spaced
// (`tt :: Step`, `tt::/**/Step`).
//
// It also warns, without failing, when a student's copy of a step's file was edited outside
// its regions: the build takes only the regions, so those edits do nothing.
//
// Usage: lab-regions SOLUTION [FILE...]  (SOLUTION: the step's source; FILE: a student's copy,
//                                         or a file of regions; none: nothing to check)
// Exit status: 0 every region is acceptable, 1 a region is not (one line each, FILE:LINE:),
// 2 bad usage or an unreadable file.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// One region of a file: its exercise, its body and the line of the body's first line.
struct Region {
  std::string id;
  std::string body;
  int line = 0;
};

/// A file cut at its region markers: the regions, and the text between them (segments[0]
/// before the first region, segments[i] after region i), with the line each segment starts at.
struct Cut {
  std::vector<Region> regions;
  std::vector<std::string> segments;
  std::vector<int> segment_lines;
};

Cut cut(const std::string& text) {
  static const std::regex begin(R"(^[ \t]*// LAB BEGIN ([0-9][0-9]-[a-z0-9-]+).*$)");
  static const std::regex end(R"(^[ \t]*// LAB END.*$)");
  Cut c;
  c.segments.emplace_back();
  c.segment_lines.push_back(1);
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool inside = false;
  std::smatch m;
  while (std::getline(in, line)) {
    ++n;
    if (!inside && std::regex_match(line, m, begin)) {
      c.segments.back() += line + "\n";
      c.regions.push_back({m[1], "", n + 1});
      inside = true;
    } else if (inside && std::regex_match(line, end)) {
      inside = false;
      c.segments.push_back(line + "\n");
      c.segment_lines.push_back(n);
    } else if (inside) {
      c.regions.back().body += line + "\n";
    } else {
      c.segments.back() += line + "\n";
    }
  }
  return c;
}

/// A token of C++ source with its line: an identifier (with any `::` qualification joined),
/// a number, or one punctuation character; comments, strings and character literals dropped.
struct Token {
  std::string text;
  int line;
};

std::vector<Token> tokens(const std::string& src, int first_line, std::vector<Token>& directives) {
  std::vector<Token> out;
  int line = first_line;
  bool line_start = true;
  for (std::size_t i = 0; i < src.size();) {
    const char c = src[i];
    if (c == '\n') {
      ++line;
      ++i;
      line_start = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    const bool hash = c == '#' || (src.compare(i, 2, "%:") == 0);  // `%:` is the digraph of #
    if (hash && line_start) {  // a preprocessor line, continued by backslashes
      std::size_t e = i;
      while (e < src.size() && src[e] != '\n') {
        if (src[e] == '\\' && e + 1 < src.size() && src[e + 1] == '\n') ++e;
        ++e;
      }
      directives.push_back({src.substr(i, e - i), line});
      for (std::size_t k = i; k < e; ++k) line += src[k] == '\n';
      i = e;
      continue;
    }
    // Comments are white space: one before a `#` leaves the `#` at the start of its line.
    if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (src.compare(i, 2, "/*") == 0) {
      const std::size_t e = src.find("*/", i + 2);
      const std::size_t stop = e == std::string::npos ? src.size() : e + 2;
      for (std::size_t k = i; k < stop; ++k) line += src[k] == '\n';
      i = stop;
      continue;
    }
    line_start = false;
    // Digraphs are the tokens they spell (`<::` is `<` then `::`, unless `:` or `>` follows).
    static const std::pair<const char*, const char*> digraphs[] = {
        {"%:%:", "#"}, {"%:", "#"}, {"<%", "{"}, {"%>", "}"}, {"<:", "["}, {":>", "]"}};
    bool spelled = false;
    for (const auto& [digraph, token] : digraphs) {
      const std::size_t n = std::char_traits<char>::length(digraph);
      if (src.compare(i, n, digraph) != 0) continue;
      if (std::string(digraph) == "<:" && src.compare(i, 3, "<::") == 0 &&
          (i + 3 >= src.size() || (src[i + 3] != ':' && src[i + 3] != '>')))
        continue;
      out.push_back({token, line});
      i += n;
      spelled = true;
      break;
    }
    if (spelled) continue;
    if (c == '"' || c == '\'') {
      std::size_t e = i + 1;
      while (e < src.size() && src[e] != c && src[e] != '\n') e += src[e] == '\\' ? 2 : 1;
      out.push_back({c == '"' ? "\"\"" : "''", line});
      i = e + 1;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
        (c == ':' && src.compare(i, 2, "::") == 0)) {
      std::size_t e = i;
      while (e < src.size() && (std::isalnum(static_cast<unsigned char>(src[e])) ||
                                src[e] == '_' || src.compare(e, 2, "::") == 0))
        e += src.compare(e, 2, "::") == 0 ? 2 : 1;
      out.push_back({src.substr(i, e - i), line});
      i = e;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t e = i;
      while (e < src.size() && (std::isalnum(static_cast<unsigned char>(src[e])) ||
                                src[e] == '.' || src[e] == '\''))
        ++e;
      out.push_back({src.substr(i, e - i), line});
      i = e;
      continue;
    }
    out.push_back({std::string(1, c), line});
    ++i;
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

/// Why @p name may not appear in a region, or "" when it may.
std::string forbidden(const std::string& name) {
  static const std::set<std::string> keywords = {
      "namespace", "extern", "asm", "__asm__", "__asm", "friend", "thread_local", "new",
      "delete", "__attribute__", "_Pragma", "__declspec", "main", "goto"};
  static const std::set<std::string> libc = {
      "system", "popen", "pclose", "fork", "vfork", "execl", "execlp", "execle", "execv",
      "execvp", "execve", "dlopen", "dlsym", "fopen", "freopen", "fwrite", "fread", "fprintf",
      "printf", "puts", "putchar", "getenv", "setenv", "putenv", "malloc", "calloc", "realloc",
      "free", "memcpy", "memmove", "memset", "abort", "exit", "_exit", "atexit", "quick_exit",
      "signal", "raise", "sleep", "usleep", "open", "read", "write", "mmap", "syscall",
      "fputs", "fputc", "putc", "vprintf", "vfprintf", "dprintf", "perror", "stdout", "stderr",
      "stdin", "kill", "setjmp", "longjmp", "pthread_create", "dup2", "close"};
  static const std::set<std::string> std_ok = {
      "std::int64_t", "std::uint64_t", "std::int32_t", "std::uint32_t", "std::size_t",
      "std::ptrdiff_t", "std::min", "std::max"};
  static const std::set<std::string> tt_ok = {
      "tt::Thread", "tt::Move", "tt::Coord", "tt::inside", "tt::offset", "tt::Vec",
      "tt::load_vec", "tt::store_vec", "tt::ceil_div", "tt::Elem", "tt::Work", "tt::whole_tile",
      "tt::this_thread", "tt::kVec16", "tt::Pack"};
  std::string bare = name;
  while (starts_with(bare, "::")) bare = bare.substr(2);
  if (keywords.count(bare)) return "'" + bare + "': no exercise needs it in a region";
  // The compiler's and the C library's own names: __builtin_printf prints, __builtin_trap ends.
  static const std::regex internal(R"(^(__builtin|__sync_|__atomic_|__cxa|__libc|_IO_|__gnu_).*)");
  if (std::regex_match(bare, internal))
    return "'" + bare + "': a compiler or C library builtin; a region is kernel code";
  if (libc.count(bare) || (starts_with(bare, "std::") && !std_ok.count(bare)))
    return "'" + bare + "': a library call; a region is kernel code (std:: allows only " +
           "int64_t, uint64_t, int32_t, uint32_t, size_t, ptrdiff_t, min and max)";
  static const std::regex cuda(
      R"(^(cuda[A-Z_]|cu[A-Z]|cublas|cusparse|cufft|curand|cusolver|nccl|nvrtc|nvml|cub::|thrust::).*)");
  if (std::regex_match(bare, cuda))
    return "'" + bare + "': a call into the CUDA runtime, driver or libraries; the kernel of "
           "an exercise moves the elements itself";
  if (starts_with(bare, "tt::") && !tt_ok.count(bare)) {
    std::string allowed;
    for (const auto& ok : tt_ok) allowed += (allowed.empty() ? "" : ", ") + ok.substr(4);
    return "'" + bare + "': the harness (references, runner, registry, emulation) is not " +
           "part of an exercise; from tt:: a region may use " + allowed;
  }
  return "";
}

// --- The allow-list of names ------------------------------------------------------------
//
// Every name a region uses must be one of: a word of the language that kernel code needs, a
// CUDA built-in or integer intrinsic, the kernel vocabulary (tt::Thread ... and TT_HD), a
// name the step's own file declares outside its regions (the function's parameters, kTile,
// tile_slot, ...), or a name the region declares itself, used where that declaration is in
// scope. A member after `.` or `->` is the member of an object the region already has. So a
// name this check has never heard of (a C library function, a macro of the harness, a
// compiler builtin) is refused whatever it is, not because it is on a list of bad names.
// TT_HD is the one macro a region may use; every other macro name is refused, so the names
// checked are the names the compiler sees after preprocessing.

bool is_word(const std::string& w) {
  return !w.empty() && (std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_' ||
                        (w.size() > 2 && w.compare(0, 2, "::") == 0));
}

/// Words of C++ and CUDA C++ that kernel code needs, and the kernel vocabulary.
const std::set<std::string>& fixed_names() {
  static const std::set<std::string> names = {
      // C++
      "alignof", "auto", "bool", "break", "case", "char", "class", "const", "const_cast",
      "constexpr", "continue", "decltype", "default", "do", "double", "else", "enum", "explicit",
      "false", "float", "for", "if", "inline", "int", "long", "noexcept", "nullptr", "operator",
      "private", "protected", "public", "reinterpret_cast", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "true",
      "typedef", "typename", "union", "unsigned", "using", "void", "volatile", "while", "alignas",
      "mutable", "and", "or", "not", "bitand", "bitor", "xor", "compl", "and_eq", "or_eq", "xor_eq",
      "not_eq", "int64_t", "uint64_t", "int32_t", "uint32_t", "size_t", "ptrdiff_t",
      // CUDA C++: qualifiers, built-in variables and types, barriers, integer intrinsics
      "__host__", "__device__", "__forceinline__", "__noinline__", "__restrict__", "__restrict",
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "uint3", "dim3", "int2", "int3",
      "int4", "uint2", "uint4", "float2", "float4", "double2", "make_int2", "make_int3",
      "make_int4", "make_uint2", "make_uint3", "make_uint4", "make_float2", "make_float4",
      "make_double2", "__syncthreads", "__syncwarp", "__shfl_sync",
      "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__activemask",
      "__ldg", "__umulhi", "__mulhi", "__umul64hi", "__mul64hi", "__popc", "__popcll", "__clz",
      "__clzll", "__ffs", "__ffsll", "__brev", "__brevll", "__byte_perm", "__funnelshift_l",
      "__funnelshift_r", "min", "max", "abs",
      // the kernel vocabulary (common/types.hpp, common/kernel.hpp)
      "TT_HD", "tt::Thread", "tt::Move", "tt::Coord", "tt::inside", "tt::offset", "tt::Vec",
      "tt::load_vec", "tt::store_vec", "tt::ceil_div", "tt::Elem", "tt::Work", "tt::whole_tile",
      "tt::this_thread", "tt::kVec16", "tt::Pack", "std::int64_t", "std::uint64_t", "std::int32_t",
      "std::uint32_t", "std::size_t", "std::ptrdiff_t", "std::min", "std::max"};
  return names;
}

/// Names that are types wherever they appear (for `T* p`, `const T& x`: a declaration only
/// after a type).
bool fixed_type(const std::string& w) {
  static const std::set<std::string> types = {
      "auto",         "bool",          "char",        "double",        "float",
      "int",          "long",          "short",       "signed",        "unsigned",
      "void",         "int64_t",       "uint64_t",    "int32_t",       "uint32_t",
      "size_t",       "ptrdiff_t",     "uint3",       "dim3",          "int2",
      "int3",         "int4",          "uint2",       "uint4",         "float2",
      "float4",       "double2",       "tt::Thread",  "tt::Move",      "tt::Coord",
      "tt::Vec",      "tt::Elem",      "tt::Work",    "tt::Pack",      "std::int64_t",
      "std::uint64_t", "std::int32_t", "std::uint32_t", "std::size_t", "std::ptrdiff_t"};
  return types.count(w) > 0;
}

/// Words after which a name is a use, never a declaration (`return x`, `x and y`, ...).
bool expression_word(const std::string& w) {
  static const std::set<std::string> words = {"return",
                                              "case",
                                              "else",
                                              "do",
                                              "sizeof",
                                              "alignof",
                                              "typeid",
                                              "throw",
                                              "new",
                                              "delete",
                                              "goto",
                                              "co_return",
                                              "co_yield",
                                              "co_await",
                                              "and",
                                              "or",
                                              "not",
                                              "bitand",
                                              "bitor",
                                              "xor",
                                              "compl",
                                              "and_eq",
                                              "or_eq",
                                              "xor_eq",
                                              "not_eq",
                                              "operator",
                                              "decltype",
                                              "template",
                                              "using",
                                              "namespace",
                                              "public",
                                              "private",
                                              "protected",
                                              "TT_HD",
                                              "__host__",
                                              "__device__",
                                              "__forceinline__",
                                              "__noinline__",
                                              "inline",
                                              "static",
                                              "constexpr",
                                              "extern",
                                              "friend",
                                              "virtual",
                                              "explicit",
                                              "noexcept",
                                              "this",
                                              "true",
                                              "false",
                                              "nullptr",
                                              "static_cast",
                                              "reinterpret_cast",
                                              "const_cast",
                                              "if",
                                              "while",
                                              "for",
                                              "switch"};
  return words.count(w) > 0;
}

/// Words after which the next name is declared: `int x`, `const T x`, `class W`, ...
bool declaring_word(const std::string& w) {
  static const std::set<std::string> words = {
      "bool",   "char",     "double", "float",    "int",          "long",      "short",
      "signed", "unsigned", "void",   "auto",     "const",        "volatile",  "class",
      "struct", "union",    "enum",   "typename", "__restrict__", "__restrict"};
  return words.count(w) > 0;
}

/// The tokens of @p src with names joined to their qualification however it is spaced
/// (`tt :: Step`, `tt::/**/Step` are `tt::Step`).
std::vector<Token> joined(const std::vector<Token>& t) {
  const auto ends_scope = [](const std::string& w) {
    return w.size() >= 2 && w.compare(w.size() - 2, 2, "::") == 0;
  };
  const auto part = [](const std::string& w) { return is_word(w) || w == "::"; };
  std::vector<Token> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!part(t[i].text)) {
      out.push_back(t[i]);
      continue;
    }
    Token name = t[i];
    while (i + 1 < t.size() && part(t[i + 1].text) &&
           (ends_scope(name.text) || starts_with(t[i + 1].text, "::"))) {
      const std::string& next = t[++i].text;
      name.text += ends_scope(name.text) && starts_with(next, "::") ? next.substr(2) : next;
    }
    out.push_back(name);
  }
  return out;
}

/// The first part of a qualified name (`W` of `W::load`), or the name itself.
std::string head(const std::string& name) {
  const std::size_t k = name.find("::");
  return k == std::string::npos ? name : name.substr(0, k);
}

/// The names a piece of code declares and where each may be used: a name declared in a block
/// from its declaration to the block's end, in a class or struct body throughout it, a
/// parameter (of a function, a lambda, a template or a for statement) in what follows it.
struct Names {
  struct Scope {
    int parent;
    bool type_body;  ///< A class, struct, union or enum body: its names are used anywhere in it.
    std::size_t open;
  };
  struct Decl {
    std::string name;
    int scope;             ///< Where it is declared.
    std::size_t from, to;  ///< The tokens where it may be used.
    int closer;            ///< The scope whose end ends it (a parameter's: its body's).
  };
  struct Use {
    std::string name;
    int scope;
    std::size_t at;
    int line;
  };
  std::vector<Scope> scopes{{-1, false, 0}};
  std::vector<Decl> decls;
  std::vector<Use> uses;
  std::set<std::string> types;  ///< Names declared as types (struct S, class W, using X = ...).

  /// Whether @p name, used at token @p at in scope @p scope, has a declaration there.
  bool declared(const std::string& name, int scope, std::size_t at) const {
    for (const Decl& d : decls) {
      if (d.name != name || at < d.from || at > d.to) continue;
      for (int s = scope; s >= 0; s = scopes[s].parent)
        if (s == d.scope) return true;
    }
    return false;
  }
  bool any(const std::string& name) const {
    return std::any_of(decls.begin(), decls.end(), [&](const Decl& d) { return d.name == name; });
  }
};

/// Reads the declarations and the uses of names in @p t (joined tokens).
Names read_names(const std::vector<Token>& t) {
  Names n;
  const std::size_t open_end = static_cast<std::size_t>(-1);
  int scope = 0;
  int parens = 0, angles = 0;        // angles: inside a template's parameter list
  std::vector<Names::Decl> pending;  // parameters, waiting for the body they belong to
  std::vector<char> brace_kind;      // 'f' block, 't' type body, 'e' enum body, 'i' initializer
  bool decl_statement = false;       // the statement at this level has declared a name
  int decl_parens = 0;               // the depths of its first declaration
  std::size_t decl_braces = 0;
  std::size_t statement = 0;  // its first token
  const auto known_type = [&](const std::string& w) {
    return fixed_type(w) || n.types.count(w) ||
           (w.find("::") != std::string::npos && !starts_with(w, "tt::") &&
            !starts_with(w, "std::") && !starts_with(w, "::"));
  };
  // Whether the tokens before @p i (a '>') close a template name's arguments: `tt::Move<>`.
  const auto template_type_ends = [&](std::size_t i) {
    int depth = 0;
    for (std::size_t k = i + 1; k-- > 0;) {
      if (t[k].text == ">") ++depth;
      if (t[k].text == "<" && --depth == 0) return k > 0 && known_type(t[k - 1].text);
      if (t[k].text == ";" || t[k].text == "{" || t[k].text == "}") return false;
    }
    return false;
  };
  const auto declare = [&](const std::string& name, std::size_t at) {
    Names::Decl d{name, scope, at, open_end, scope};
    if (parens > 0 || angles > 0) {
      pending.push_back(d);
    } else {
      if (!brace_kind.empty() && brace_kind.back() == 't') d.from = n.scopes[scope].open;
      n.decls.push_back(d);
    }
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    const std::string prev = i > 0 ? t[i - 1].text : "";
    if (x == "template" && i + 1 < t.size() && t[i + 1].text == "<") {
      ++angles;
      ++i;
      continue;
    }
    if (angles > 0 && x == "<") ++angles;
    if (angles > 0 && x == ">") --angles;
    if (x == "(") ++parens;
    if (x == ")") parens = std::max(0, parens - 1);
    if (x == "{") {
      // What the brace opens: a type's body after a class-key, a function's body after its
      // parameters (or a lambda's, perhaps after `-> type`), a block after a statement, else
      // an initializer (`Coord src{...}`, `= {...}`).
      char last = 'i';
      for (std::size_t k = statement; k < i; ++k) {
        const std::string& y = t[k].text;
        if ((y == "struct" || y == "class" || y == "union") && !(k > 0 && t[k - 1].text == "enum"))
          last = 't';
        if (y == "enum") last = 'e';
        if (y == ")") last = 'f';
        if (y == "=") last = 'i';
      }
      const bool in_function = std::count(brace_kind.begin(), brace_kind.end(), 'f') > 0;
      char kind = last;
      if (in_function && last != 't' && last != 'e') {
        bool trailing = false;  // `[&](int p) -> M {`
        for (std::size_t k = statement; k + 1 < i; ++k)
          if (t[k].text == ")" && t[k + 1].text == "-") trailing = true;
        kind = prev == ")" || prev == "{" || prev == "}" || prev == ";" || prev == "else" ||
                       prev == "do" || prev == ":" || trailing
                   ? 'f'
                   : 'i';
      }
      brace_kind.push_back(kind);
      if (kind != 'i') {
        n.scopes.push_back({scope, kind == 't' || kind == 'e', i});
        scope = static_cast<int>(n.scopes.size()) - 1;
        for (auto d : pending) {  // used from the parameter on: in the header, then the body
          d.closer = scope;
          n.decls.push_back(d);
        }
        pending.clear();
        statement = i + 1;
        decl_statement = false;
      }
      continue;
    }
    if (x == "}") {
      if (brace_kind.empty()) continue;
      const char kind = brace_kind.back();
      brace_kind.pop_back();
      if (kind != 'i') {
        for (auto& d : n.decls)
          if (d.closer == scope && d.to == open_end) d.to = i;
        scope = n.scopes[scope].parent;
        statement = i + 1;
        decl_statement = false;
      }
      continue;
    }
    if (x == ";") {
      if (parens == 0) {
        for (auto d : pending) {
          d.to = i;
          n.decls.push_back(d);
        }
        pending.clear();
        statement = i + 1;
      }
      decl_statement = false;
      continue;
    }
    if (!is_word(x) || fixed_names().count(x)) continue;
    // A member (`me.block`, `p->x`) belongs to an object the region already has.
    if (prev == "." || (prev == ">" && i > 1 && t[i - 2].text == "-")) continue;
    const std::string next = i + 1 < t.size() ? t[i + 1].text : "";
    // Enumerators, declared in the scope around the enum.
    if (!brace_kind.empty() && brace_kind.back() == 'e' && (prev == "{" || prev == ",")) {
      const int around = n.scopes[scope].parent;
      n.decls.push_back({x, around, i, open_end, around});
      continue;
    }
    bool decl = false;
    if (x.find("::") == std::string::npos && next != "::") {
      if (declaring_word(prev) || (prev == "using" && next == "=")) {
        decl = true;
      } else if (is_word(prev) && !expression_word(prev) && !starts_with(prev, "::")) {
        decl = true;  // `Coord src`, `T v[...]`: two names in a row declare the second
      } else if (prev == "*" || prev == "&" || prev == ">") {
        std::size_t k = i - 1;
        while (k > 0 && (t[k].text == "*" || t[k].text == "&" || t[k].text == "const" ||
                         t[k].text == "volatile" || t[k].text == "__restrict__"))
          --k;
        if (t[k].text == ",")  // `int a, *b;`
          decl = decl_statement && parens == decl_parens && brace_kind.size() == decl_braces;
        else
          decl = t[k].text == ">" ? template_type_ends(k) : known_type(t[k].text);
      } else if (prev == "," && decl_statement && parens == decl_parens &&
                 brace_kind.size() == decl_braces &&
                 (next == "=" || next == ";" || next == "," || next == "[" || next == "{" ||
                  next == "(")) {
        decl = true;  // `int a = 0, b = 1;`
      }
    } else if (prev == "using" && next == ";") {
      // `using tt::Coord;` declares Coord
      const std::string last = x.substr(x.rfind("::") + 2);
      n.uses.push_back({x, scope, i, t[i].line});
      declare(last, i);
      if (known_type(x)) n.types.insert(last);
      continue;
    }
    if (decl) {
      declare(x, i);
      if (prev == "class" || prev == "struct" || prev == "union" || prev == "enum" ||
          prev == "typename" || prev == "using")
        n.types.insert(x);
      if (parens == 0 || !decl_statement) {
        decl_statement = true;
        decl_parens = parens;
        decl_braces = brace_kind.size();
      }
      continue;
    }
    n.uses.push_back({x, scope, i, t[i].line});
  }
  for (auto d : pending) n.decls.push_back(d);
  return n;
}

/// The context of a step's regions: the names its file declares outside them.
std::set<std::string> context_names(const Cut& solution) {
  std::string outside;
  for (const auto& s : solution.segments) outside += s;
  std::vector<Token> directives;
  const Names n = read_names(joined(tokens(outside, 1, directives)));
  std::set<std::string> names;
  for (const auto& d : n.decls) names.insert(d.name);
  return names;
}

/// The problems of one region, as "LINE: message".
std::vector<std::pair<int, std::string>> check(const Region& r,
                                               const std::set<std::string>& context) {
  std::vector<std::pair<int, std::string>> bad;
  std::vector<Token> directives;
  const std::vector<Token> t = tokens(r.body, r.line, directives);
  static const std::regex unroll(R"(^#\s*pragma\s+unroll(\s+\d+)?\s*$)");
  for (const auto& d : directives)
    if (!std::regex_match(d.text, unroll))
      bad.push_back({d.line, "a preprocessor line ('" + d.text.substr(0, 40) +
                                 "'): a region may hold `#pragma unroll` only, and the same "
                                 "code for the host and the GPU"});
  // What could hide code from the reading below: bytes that are not printable ASCII, line
  // continuations (a backslash, perhaps spaces, then the line's end: the compiler joins the
  // lines, so `cuda\` and `Memcpy` on the next line are one name), trigraphs.
  {
    int line = r.line;
    for (std::size_t i = 0; i < r.body.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(r.body[i]);
      if (c == '\n') {
        ++line;
      } else if (c == '\\') {
        std::size_t e = i + 1;
        while (e < r.body.size() && (r.body[e] == ' ' || r.body[e] == '\t')) ++e;
        if (e < r.body.size() && r.body[e] == '\n')
          bad.push_back({line,
                         "a line continuation (a '\\' at the end of a line): no exercise "
                         "needs one, and it joins lines into one"});
      } else if (c != '\t' && (c < 0x20 || c > 0x7e)) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", c);
        bad.push_back({line, std::string("a byte that is not printable ASCII (") + hex +
                                 "): a region is plain ASCII source"});
      } else if (c == '?' && r.body.compare(i, 2, "??") == 0 && i + 2 < r.body.size() &&
                 std::string("=/'()!<>-").find(r.body[i + 2]) != std::string::npos) {
        bad.push_back({line, "a trigraph ('" + r.body.substr(i, 3) + "'): no exercise needs one"});
      }
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string why = forbidden(t[i].text);
    if (!why.empty()) bad.push_back({t[i].line, why});
    if (t[i].text == "#")
      bad.push_back({t[i].line, "a '#' outside a preprocessor line: a region has no macros"});
    if (t[i].text == "[" && i + 1 < t.size() && t[i + 1].text == "[")
      bad.push_back({t[i].line,
                     "an attribute ('[[...]]'): no exercise needs one, and "
                     "[[gnu::constructor]] runs a function before main"});
  }
  // A name and its qualification apart (`tt :: Step`, `tt::/**/Step`): the name the tokens
  // make together (joined()), where it is no token of its own, checked above.
  std::set<std::string> own;
  for (const Token& k : t) own.insert(k.text);
  for (const Token& name : joined(t)) {
    if (own.count(name.text)) continue;
    const std::string why = forbidden(name.text);
    if (!why.empty()) bad.push_back({name.line, why});
  }
  // Brackets, and the statements of the region's outermost level (outside any function).
  int depth = 0, parens = 0;
  std::vector<char> open;  // the kinds of the open braces: 'f' a function's or a lambda's
                           // body (or a block in one), 't' a type's body, 'i' an initializer
  std::size_t stmt = 0;    // the first token of the current statement
  const auto in_function = [&] { return std::count(open.begin(), open.end(), 'f') > 0; };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (x == "(") ++parens;
    if (x == ")" && --parens < 0) {
      bad.push_back({t[i].line, "a ')' that closes more than the region opened"});
      parens = 0;
    }
    if (x == "{") {
      // What this brace opens: a function body when the statement so far has a ')' at its
      // end (perhaps followed by const, noexcept, -> type), a type's body after struct,
      // class, union or enum, else an initializer.
      char kind = 'i';
      if (in_function()) {
        kind = 'f';
      } else {
        // The last of: a class-key (a type, unless a ')' follows it: `template <class W>
        // void f(...)`), a ')' (a function), an '=' (an initializer).
        char last = 'i';
        for (std::size_t k = stmt; k < i; ++k) {
          const std::string& y = t[k].text;
          if (y == "struct" || y == "class" || y == "union" || y == "enum") last = 't';
          if (y == ")") last = 'f';
          if (y == "=") last = 'i';
        }
        kind = last;
      }
      open.push_back(kind);
      ++depth;
      if (kind != 'i') stmt = i + 1;
      continue;
    }
    if (x == "}") {
      if (--depth < 0) {
        bad.push_back({t[i].line,
                       "a '}' that closes more than the region opened: a region "
                       "cannot end the function, class or namespace it sits in"});
        depth = 0;
        open.clear();
        continue;
      }
      const char kind = open.back();
      open.pop_back();
      if (kind != 'i') stmt = i + 1;
      continue;
    }
    if (x == ";" && !in_function()) {
      // A declaration outside any function: what may it be?
      std::vector<std::string> s;
      for (std::size_t k = stmt; k < i; ++k) s.push_back(t[k].text);
      const auto has = [&](const char* w) { return std::find(s.begin(), s.end(), w) != s.end(); };
      const bool ok = s.empty() || has("constexpr") || has("static_assert") ||
                      (!s.empty() && (s[0] == "using" || s[0] == "typedef")) ||
                      ((has("struct") || has("class") || has("union") || has("enum")) &&
                       !has("="));
      if (!ok)
        bad.push_back({t[stmt < t.size() ? stmt : i].line,
                       "an object defined outside a function (its initializer would run "
                       "before main): outside a function a region defines functions, types "
                       "and constexpr constants only"});
      stmt = i + 1;
    } else if (x == ";") {
      // A declaration in a function: no static or thread_local object.
      for (std::size_t k = stmt; k < i; ++k)
        if (t[k].text == "static") {
          bool constant = false;
          for (std::size_t q = stmt; q < i; ++q) constant |= t[q].text == "constexpr";
          if (!constant)
            bad.push_back({t[k].line,
                           "a static object in a function: it lives across calls "
                           "and threads; a kernel keeps its values in registers"});
          break;
        }
      stmt = i + 1;
    }
  }
  // The allow-list: every name used is a known word, the step's or the region's own.
  const Names names = read_names(joined(t));
  for (const auto& u : names.uses) {
    if (fixed_names().count(u.name) || !forbidden(u.name).empty()) continue;  // said above
    const std::string first = head(u.name);
    const bool global = starts_with(u.name, "::");
    if (!global && (context.count(first) || names.declared(first, u.scope, u.at))) continue;
    if (global && fixed_names().count(u.name.substr(2))) continue;
    bad.push_back({u.line, "'" + u.name + "': not a name a region may use. A region uses the " +
                               "kernel vocabulary (tt::Thread, tt::Move, tt::Coord, TT_HD, " +
                               "...), C++ and CUDA's own words (threadIdx, __syncthreads, " +
                               "min, ...), the step's names and the names it declares"});
  }
  if (depth > 0)
    bad.push_back({t.empty() ? r.line : t.back().line,
                   "a '{' the region does not close: a region must close what it opens"});
  if (parens > 0)
    bad.push_back({t.empty() ? r.line : t.back().line, "a '(' the region does not close"});
  std::sort(bad.begin(), bad.end());
  bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
  return bad;
}

bool read(const std::string& path, std::string& text) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {  // no FILE: the build takes the model answer (proof set `solved`)
    std::cerr << "usage: lab-regions SOLUTION [FILE...]\n";
    return 2;
  }
  std::string solution_text;
  if (!read(argv[1], solution_text)) {
    std::cerr << "lab-regions: cannot read " << argv[1] << "\n";
    return 2;
  }
  const Cut solution = cut(solution_text);
  const std::set<std::string> context = context_names(solution);
  if (std::getenv("TT_LAB_REGIONS_CONTEXT"))
    for (const auto& n : context) std::cerr << "context: " << n << "\n";
  std::set<std::string> exercises;
  for (const auto& r : solution.regions) exercises.insert(r.id);
  int problems = 0;
  for (int a = 2; a < argc; ++a) {
    std::string text;
    if (!read(argv[a], text)) {
      std::cerr << "lab-regions: cannot read " << argv[a] << "\n";
      return 2;
    }
    // A carriage return (Windows line endings) would hide the region markers from the reading
    // below while the build still takes the regions: refused, for each region of the file.
    const std::size_t cr = text.find('\r');
    if (cr != std::string::npos) {
      const int cr_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + cr, '\n'));
      std::string lf = text;
      lf.erase(std::remove(lf.begin(), lf.end(), '\r'), lf.end());
      bool named = false;
      for (const auto& r : cut(lf).regions) {
        if (!exercises.count(r.id)) continue;
        std::cerr << argv[a] << ":" << cr_line << ": error: exercise " << r.id
                  << ": a carriage return (Windows line endings): save the file with LF line "
                     "endings; the lab reads its regions line by line\n";
        ++problems;
        named = true;
      }
      if (!named) {
        std::cerr << argv[a] << ":" << cr_line
                  << ": error: a carriage return (Windows line "
                     "endings): save the file with LF line endings\n";
        ++problems;
      }
      continue;
    }
    const Cut c = cut(text);
    for (const auto& r : c.regions) {
      if (!exercises.count(r.id)) continue;  // another file's exercise
      for (const auto& [line, why] : check(r, context)) {
        std::cerr << argv[a] << ":" << line << ": error: exercise " << r.id << ": " << why
                  << "\n";
        ++problems;
      }
    }
    // A copy of the step's file (not a file of regions alone): the text outside its regions
    // should be the step's own; the build ignores it, so an edit there does nothing.
    bool code_outside = false;  // a file of regions has comments and blank lines only there
    for (const auto& seg : c.segments) {
      std::istringstream lines(seg);
      std::string l;
      while (std::getline(lines, l)) {
        const auto f = l.find_first_not_of(" \t");
        if (f != std::string::npos && l.compare(f, 2, "//") != 0) code_outside = true;
      }
    }
    if (code_outside && c.regions.size() == solution.regions.size()) {
      for (std::size_t k = 0; k < c.segments.size() && k < solution.segments.size(); ++k) {
        const std::string& mine = c.segments[k];
        const std::string& theirs = solution.segments[k];
        const bool same = k == 0 ? mine.size() >= theirs.size() &&
                                       mine.compare(mine.size() - theirs.size(), theirs.size(),
                                                    theirs) == 0
                                 : mine == theirs;
        if (!same) {
          std::cerr << argv[a] << ":" << c.segment_lines[k]
                    << ": warning: this file was edited outside its '// LAB BEGIN' and '// LAB "
                       "END' lines; the build takes only the regions from it, so those edits "
                       "have no effect\n";
          break;
        }
      }
    }
  }
  if (problems)
    std::cerr << "lab-regions: " << problems << " problem(s): a region holds kernel code only "
              << "(docs/lab-student.md, \"What a region may hold\")\n";
  return problems ? 1 : 0;
}
