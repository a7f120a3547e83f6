#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); vector<pair<long long,long long>> v(n); for(auto&p:v) scanf("%lld %lld",&p.first,&p.second); sort(v.begin(),v.end());
long long t=0,cl=v[0].first,cr=v[0].second; for(int i=1;i<n;i++){ if(v[i].first>cr){t+=cr-cl; cl=v[i].first; cr=v[i].second;} else cr=max(cr,v[i].second);} t+=cr-cl; printf("%lld\n",t);}
