#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); vector<long long> t; for(int i=0;i<n;i++){long long x; scanf("%lld",&x); auto it=lower_bound(t.begin(),t.end(),x); if(it==t.end()) t.push_back(x); else *it=x;} printf("%d\n",(int)t.size());}
