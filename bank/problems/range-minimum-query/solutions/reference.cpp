#include <bits/stdc++.h>
using namespace std;
int main(){int n,q; scanf("%d %d",&n,&q); int K=1; while((1<<K)<=n) K++; vector<vector<long long>> t(K, vector<long long>(n)); for(auto&x:t[0]) scanf("%lld",&x);
for(int k=1;k<K;k++) for(int i=0;i+(1<<k)<=n;i++) t[k][i]=min(t[k-1][i],t[k-1][i+(1<<(k-1))]);
string out; char buf[32]; while(q--){int l,r; scanf("%d %d",&l,&r); l--; int k=31-__builtin_clz(r-l); int len=snprintf(buf,sizeof buf,"%lld\n",min(t[k][l],t[k][r-(1<<k)])); out.append(buf,len);} fputs(out.c_str(),stdout);}
