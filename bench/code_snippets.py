"""Candidate-style programs for tests/agents/test_code_reading.py and ``viva bench
code_reading``, written for them: per language a quadratic and a linear solution of "count
pairs / distinct values", a plain and a memoised Fibonacci, a sort inside a loop, and a file
with a syntax error."""

from __future__ import annotations

SNIPPETS: dict[str, dict[str, str]] = {
    "python": {
        "quadratic": """\
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if a[i] == a[j]:
                count += 1
    for c in range(26):
        pass
    print(count)


main()
""",
        "linear": """\
import sys
from collections import Counter, deque


def main():
    data = sys.stdin.read().split()
    if not data:
        print(0)
        return
    seen = set()
    counts = Counter()
    window = deque()
    for x in data[1:]:
        seen.add(x)
        counts[x] += 1
        window.append(x)
    print(len(seen))


main()
""",
        "recursion": """\
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print(fib(int(input())))
""",
        "memo": """\
from functools import lru_cache


@lru_cache(maxsize=None)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


memo = {}


def ways(i):
    if i in memo:
        return memo[i]
    memo[i] = 1 if i <= 1 else ways(i - 1) + ways(i - 2)
    return memo[i]


print(fib(int(input())), ways(10))
""",
        "sort_in_loop": """\
import heapq

n = int(input())
a = [int(x) for x in input().split()]
best = []
for i in range(n):
    best.append(a[i])
    best.sort()
heap = []
heapq.heappush(heap, 1)
print(best[-1])
""",
        "broken": """\
def main(:
    for i in range(n)
        print(i
""",
    },
    "c": {
        "quadratic": """\
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    long long *a = malloc(sizeof(long long) * n);
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    long long count = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (a[i] == a[j]) count++;
    printf("%lld\\n", count);
    return 0;
}
""",
        "linear": """\
#include <stdio.h>
#define ALPHA 26

int freq[ALPHA];

int main(void) {
    char s[200005];
    int n;
    scanf("%d %s", &n, s);
    if (n == 0) { printf("0\\n"); return 0; }
    for (int i = 0; i < n; i++) {
        freq[s[i] - 'a']++;
        for (int c = 0; c < ALPHA; c++) {
            if (freq[c] > 1) break;
        }
    }
    printf("%d\\n", freq[0]);
    return 0;
}
""",
        "recursion": """\
#include <stdio.h>

long long fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}

int main(void) { int n; scanf("%d", &n); printf("%lld\\n", fib(n)); return 0; }
""",
        "memo": """\
#include <stdio.h>
#include <string.h>

long long memo[100];

long long fib(int n) {
    if (n < 2) return n;
    if (memo[n] != -1) return memo[n];
    return memo[n] = fib(n - 1) + fib(n - 2);
}

int main(void) {
    int n;
    memset(memo, -1, sizeof memo);
    scanf("%d", &n);
    printf("%lld\\n", fib(n));
    return 0;
}
""",
        "sort_in_loop": """\
#include <stdio.h>
#include <stdlib.h>

int cmp(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }

int main(void) {
    int n, a[200000];
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {
        scanf("%d", &a[i]);
        qsort(a, i + 1, sizeof(int), cmp);
    }
    printf("%d\\n", a[n - 1]);
    return 0;
}
""",
        "broken": """\
#include <stdio.h>
int main(void) {
    int n = ;
    for (int i = 0; i < n; i++ {
        printf("%d\\n", i)
}
""",
    },
    "cpp": {
        "quadratic": """\
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    cin >> n;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;
    long long count = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            if (a[i] == a[j]) count++;
        }
    }
    cout << count << endl;
}
""",
        "linear": """\
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    cin >> n;
    vector<long long> a(n);
    if (a.empty()) { cout << 0 << endl; return 0; }
    unordered_set<long long> seen;
    unordered_map<long long, int> counts;
    priority_queue<int> pq;
    for (auto &x : a) {
        cin >> x;
        seen.insert(x);
        counts[x]++;
    }
    cout << seen.size() << endl;
}
""",
        "recursion": """\
#include <bits/stdc++.h>
using namespace std;

long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main() { int n; cin >> n; cout << fib(n) << endl; }
""",
        "memo": """\
#include <bits/stdc++.h>
using namespace std;

map<int, long long> memo;

long long fib(int n) {
    if (n < 2) return n;
    if (memo.count(n)) return memo[n];
    return memo[n] = fib(n - 1) + fib(n - 2);
}

int main() { int n; cin >> n; cout << fib(n) << endl; }
""",
        "sort_in_loop": """\
#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    cin >> n;
    vector<int> a;
    deque<int> q;
    stack<int> st;
    for (int i = 0; i < n; i++) {
        int x;
        cin >> x;
        a.push_back(x);
        std::sort(a.begin(), a.end());
    }
    cout << a.back() << endl;
}
""",
        "broken": """\
#include <bits/stdc++.h>
int main() {
    std::vector<int> a(;
    for (int i = 0; i < 3; i++ { a.push_back(i) }
""",
    },
    "java": {
        "quadratic": """\
import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = in.nextLong();
        long count = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < a.length; j++)
                if (a[i] == a[j]) count++;
        System.out.println(count);
    }
}
""",
        "linear": """\
import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        if (n == 0) { System.out.println(0); return; }
        Set<Long> seen = new HashSet<>();
        Map<Long, Integer> counts = new HashMap<>();
        Deque<Long> window = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            long x = in.nextLong();
            seen.add(x);
            counts.merge(x, 1, Integer::sum);
        }
        System.out.println(seen.size());
    }
}
""",
        "recursion": """\
import java.util.*;

public class Main {
    static long fib(int n) {
        if (n < 2) return n;
        return fib(n - 1) + fib(n - 2);
    }

    public static void main(String[] args) {
        System.out.println(fib(new Scanner(System.in).nextInt()));
    }
}
""",
        "memo": """\
import java.util.*;

public class Main {
    static Map<Integer, Long> memo = new HashMap<>();

    static long fib(int n) {
        if (n < 2) return n;
        if (memo.containsKey(n)) return memo.get(n);
        long r = fib(n - 1) + fib(n - 2);
        memo.put(n, r);
        return r;
    }

    public static void main(String[] args) {
        System.out.println(fib(new Scanner(System.in).nextInt()));
    }
}
""",
        "sort_in_loop": """\
import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        List<Integer> a = new ArrayList<>();
        PriorityQueue<Integer> pq = new PriorityQueue<>();
        for (int i = 0; i < n; i++) {
            a.add(in.nextInt());
            Collections.sort(a);
        }
        System.out.println(a.get(a.size() - 1));
    }
}
""",
        "broken": """\
public class Main {
    public static void main(String[] args) {
        int n = ;
        for (int i = 0; i < n; i++ {
""",
    },
    "go": {
        "quadratic": """\
package main

import (
\t"bufio"
\t"fmt"
\t"os"
)

func main() {
\tin := bufio.NewReader(os.Stdin)
\tvar n int
\tfmt.Fscan(in, &n)
\ta := make([]int64, n)
\tfor i := range a {
\t\tfmt.Fscan(in, &a[i])
\t}
\tcount := 0
\tfor i := 0; i < n; i++ {
\t\tfor j := i + 1; j < n; j++ {
\t\t\tif a[i] == a[j] {
\t\t\t\tcount++
\t\t\t}
\t\t}
\t}
\tfmt.Println(count)
}
""",
        "linear": """\
package main

import (
\t"container/heap"
\t"fmt"
)

const K = 26

func main() {
\tvar n int
\tfmt.Scan(&n)
\tif n == 0 {
\t\tfmt.Println(0)
\t\treturn
\t}
\tseen := map[int64]bool{}
\tfor i := 0; i < n; i++ {
\t\tvar x int64
\t\tfmt.Scan(&x)
\t\tseen[x] = true
\t\tfor c := 0; c < K; c++ {
\t\t}
\t}
\t_ = heap.Init
\tfmt.Println(len(seen))
}
""",
        "recursion": """\
package main

import "fmt"

func fib(n int) int64 {
\tif n < 2 {
\t\treturn int64(n)
\t}
\treturn fib(n-1) + fib(n-2)
}

func main() {
\tvar n int
\tfmt.Scan(&n)
\tfmt.Println(fib(n))
}
""",
        "memo": """\
package main

import "fmt"

var memo = map[int]int64{}

func fib(n int) int64 {
\tif n < 2 {
\t\treturn int64(n)
\t}
\tif v, ok := memo[n]; ok {
\t\treturn v
\t}
\tmemo[n] = fib(n-1) + fib(n-2)
\treturn memo[n]
}

func main() {
\tvar n int
\tfmt.Scan(&n)
\tfmt.Println(fib(n))
}
""",
        "sort_in_loop": """\
package main

import (
\t"fmt"
\t"sort"
)

func main() {
\tvar n int
\tfmt.Scan(&n)
\ta := []int{}
\tfor i := 0; i < n; i++ {
\t\tvar x int
\t\tfmt.Scan(&x)
\t\ta = append(a, x)
\t\tsort.Ints(a)
\t}
\tfmt.Println(a[len(a)-1])
}
""",
        "broken": """\
package main

func main() {
\tfor i := 0; i < ; i++ {
\t\tfmt.Println(i
}
""",
    },
    "javascript": {
        "quadratic": """\
const data = require('fs').readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean);
const n = Number(data[0]);
const a = data.slice(1, n + 1).map(Number);
let count = 0;
a.forEach((x, i) => {
  for (let j = i + 1; j < a.length; j++) {
    if (x === a[j]) count++;
  }
});
console.log(count);
""",
        "linear": """\
const data = require('fs').readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean);
if (data.length === 0) {
  console.log(0);
  process.exit(0);
}
const seen = new Set();
const counts = new Map();
for (const x of data.slice(1)) {
  seen.add(x);
  counts.set(x, (counts.get(x) || 0) + 1);
}
console.log(seen.size);
""",
        "recursion": """\
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
console.log(fib(Number(require('fs').readFileSync(0, 'utf8'))));
""",
        "memo": """\
const memo = new Map();
const fib = (n) => {
  if (n < 2) return n;
  if (memo.has(n)) return memo.get(n);
  const r = fib(n - 1) + fib(n - 2);
  memo.set(n, r);
  return r;
};
console.log(fib(Number(require('fs').readFileSync(0, 'utf8'))));
""",
        "sort_in_loop": """\
const data = require('fs').readFileSync(0, 'utf8').split(/\\s+/).filter(Boolean).map(Number);
const n = data[0];
const best = [];
for (let i = 1; i <= n; i++) {
  best.push(data[i]);
  best.sort((p, q) => p - q);
}
console.log(best[best.length - 1]);
""",
        "broken": """\
const n = ;
for (let i = 0; i < n; i++ {
  console.log(i
""",
    },
}

# The containers each language's "linear" snippet uses (a subset check).
LINEAR_CONTAINERS: dict[str, set[str]] = {
    "python": {"set", "hash_map", "deque"},
    "c": {"array"},
    "cpp": {"vector", "set", "hash_map", "heap"},
    "java": {"set", "hash_map", "deque"},
    "go": {"hash_map", "heap"},
    "javascript": {"set", "hash_map"},
}
# And the "sort_in_loop" snippet's.
SORT_CONTAINERS: dict[str, set[str]] = {
    "python": {"list", "heap"},
    "c": {"array"},
    "cpp": {"vector", "deque", "stack"},
    "java": {"list", "heap"},
    "go": {"array"},
    "javascript": {"array"},
}
