#include <bits/stdc++.h>
using namespace std;
int main(){int n,m; scanf("%d %d",&n,&m); vector<vector<pair<int,long long>>> g(n+1); for(int i=0;i<m;i++){int u,v; long long w; scanf("%d %d %lld",&u,&v,&w); g[u].push_back({v,w});}
vector<long long> d(n+1,LLONG_MAX); d[1]=0; priority_queue<pair<long long,int>,vector<pair<long long,int>>,greater<>> pq; pq.push({0,1});
while(!pq.empty()){auto [du,u]=pq.top(); pq.pop(); if(du>d[u]) continue; for(auto [v,w]:g[u]) if(du+w<d[v]){d[v]=du+w; pq.push({d[v],v});}}
string out; char buf[32]; for(int i=1;i<=n;i++){int len=snprintf(buf,sizeof buf,"%s%lld",i>1?" ":"",d[i]==LLONG_MAX?-1LL:d[i]); out.append(buf,len);} puts(out.c_str());}
