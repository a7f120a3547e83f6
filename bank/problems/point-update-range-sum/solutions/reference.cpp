#include <bits/stdc++.h>
using namespace std;
int n; vector<long long> t; void add(int i,long long d){for(;i<=n;i+=i&-i) t[i]+=d;} long long sum(int i){long long s=0; for(;i>0;i-=i&-i) s+=t[i]; return s;}
int main(){int q; scanf("%d %d",&n,&q); vector<long long> a(n+1); t.assign(n+1,0); for(int i=1;i<=n;i++){scanf("%lld",&a[i]); add(i,a[i]);}
string out; char buf[32]; while(q--){int op; long long x,y; scanf("%d %lld %lld",&op,&x,&y); if(op==1){add(x,y-a[x]); a[x]=y;} else {int len=snprintf(buf,sizeof buf,"%lld\n",sum(y)-sum(x-1)); out.append(buf,len);}} fputs(out.c_str(),stdout);}
