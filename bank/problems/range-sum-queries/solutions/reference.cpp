#include <bits/stdc++.h>
using namespace std;
int main(){int n,q; scanf("%d %d",&n,&q); vector<long long> p(n+1,0); for(int i=1;i<=n;i++){long long x; scanf("%lld",&x); p[i]=p[i-1]+x;}
string out; out.reserve(q*12); char buf[32]; while(q--){int l,r; scanf("%d %d",&l,&r); int len=snprintf(buf,sizeof buf,"%lld\n",p[r]-p[l-1]); out.append(buf,len);} fputs(out.c_str(),stdout);}
