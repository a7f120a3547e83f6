#include <bits/stdc++.h>
using namespace std;
typedef unsigned long long u; const u M=1000000007ULL;
struct Mx{u a,b,c,d;}; Mx mul(Mx x,Mx y){return {(x.a*y.a+x.b*y.c)%M,(x.a*y.b+x.b*y.d)%M,(x.c*y.a+x.d*y.c)%M,(x.c*y.b+x.d*y.d)%M};}
int main(){int t; scanf("%d",&t); while(t--){u n; scanf("%llu",&n); Mx r{1,0,0,1},b{1,1,1,0}; while(n){ if(n&1) r=mul(r,b); b=mul(b,b); n>>=1;} printf("%llu\n",r.b);}}
