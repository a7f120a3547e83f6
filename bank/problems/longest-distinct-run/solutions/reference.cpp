#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); unordered_map<long long,int> last; last.reserve(2*n+1); int start=0,best=0;
for(int i=0;i<n;i++){long long x; scanf("%lld",&x); auto it=last.find(x); if(it!=last.end() && it->second>=start) start=it->second+1; last[x]=i; best=max(best,i-start+1);} printf("%d\n",best);}
