#include <bits/stdc++.h>
using namespace std;
int main(){int n; long long k; scanf("%d %lld",&n,&k); unordered_map<long long,long long> c; c.reserve(2*n+2); c[0]=1; long long s=0,t=0;
for(int i=0;i<n;i++){long long x; scanf("%lld",&x); s+=x; auto it=c.find(s-k); if(it!=c.end()) t+=it->second; c[s]++;} printf("%lld\n",t);}
