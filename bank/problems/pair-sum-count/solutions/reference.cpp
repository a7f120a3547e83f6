#include <bits/stdc++.h>
using namespace std;
int main(){int n; long long k; scanf("%d %lld",&n,&k); unordered_map<long long,long long> seen; seen.reserve(n*2+1);
long long pairs=0; for(int i=0;i<n;i++){long long x; scanf("%lld",&x); auto it=seen.find(k-x); if(it!=seen.end()) pairs+=it->second; seen[x]++;} printf("%lld\n",pairs);}
