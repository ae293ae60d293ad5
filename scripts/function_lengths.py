#!/usr/bin/env python3
"""Function lengths of C++ sources, for the figures in docs/HACKING.md.

Lexical, not a parser: after comments and string literals are blanked, a
function body is a brace block opened at namespace or class scope right
after ')' (then optionally const, noexcept, override, final, mutable, a
trailing return type, or a constructor's initialiser list). Its length
runs from the signature's first line to the closing brace. Lambdas and
blocks inside a body count toward that body.

Usage: scripts/function_lengths.py FILE... [--top N]
  (every source: scripts/function_lengths.py $(git ls-files | grep -E '^(libenergy|daemon|cli|sim|exporter)/.*[.](cpp|h)$'))
Prints the count, median, 90th percentile, maximum and the number over 40
lines, then the N longest (default 10)."""
import re, sys, statistics
def strip(src):
    src = re.sub(r'//[^\n]*', '', src)
    src = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), src, flags=re.S)
    src = re.sub(r'R"(\w*)\(.*?\)\1"', lambda m: '""' + '\n' * m.group(0).count('\n'), src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(\\.|[^'\\\n])*'", "''", src)
    return src
def functions(path):
    s = strip(open(path, errors='replace').read())
    out = []; stack = []  # each: 'scope' or ('func', start_line, name)
    line = 1; last_stmt_start = 0
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == '\n': line += 1
        elif ch == '{':
            in_func = any(x != 'scope' for x in stack)
            head = s[last_stmt_start:i]
            if not in_func and re.search(r'\)\s*(const|noexcept|override|final|mutable|\s|->\s*[\w:<>,\s*&]+)*$', head) \
               or (not in_func and re.search(r'\)\s*:\s*[\w:]+\s*[({]', head) and not re.search(r'\b(class|struct|enum|namespace)\b', head.split('(')[0])):
                m = re.search(r'([~\w:]+)\s*\(', head)
                start = line - head.lstrip().count('\n')  # the signature's first line
                stack.append(('func', start, m.group(1) if m else '?'))
            else:
                stack.append('scope' if not in_func else 'inner')
            last_stmt_start = i + 1
        elif ch == '}':
            if stack:
                top = stack.pop()
                if isinstance(top, tuple): out.append((line - top[1] + 1, top[2], top[1]))
            last_stmt_start = i + 1
        elif ch == ';':
            last_stmt_start = i + 1
        i += 1
    return out
args = sys.argv[1:]; top = 10
if '--top' in args: k = args.index('--top'); top = int(args[k + 1]); del args[k:k + 2]
allf = []
for p in args:
    for n, name, l in functions(p): allf.append((n, f'{p}:{l} {name}'))
ls = sorted(n for n, _ in allf)
print(f'functions: {len(ls)}  median: {statistics.median(ls)}  p90: {ls[int(len(ls) * 0.9)]}  max: {ls[-1]}  over 40 lines: {sum(n > 40 for n in ls)}')
for n, w in sorted(allf, reverse=True)[:top]: print(f'  {n:4d}  {w}')
