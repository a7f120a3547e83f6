#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); vector<long long> h(n); for(auto&x:h) scanf("%lld",&x); vector<long long> L(n),R(n); long long w=0;
for(int i=0;i<n;i++) L[i]=max(i?L[i-1]:0LL,h[i]); for(int i=n-1;i>=0;i--) R[i]=max(i<n-1?R[i+1]:0LL,h[i]); for(int i=0;i<n;i++) w+=min(L[i],R[i])-h[i]; printf("%lld\n",w);}
