#include <bits/stdc++.h>
using namespace std;
int main(){int n,k; scanf("%d %d",&n,&k); vector<long long> a(n); for(auto&x:a) scanf("%lld",&x); deque<int> d; string out; char buf[32];
for(int i=0;i<n;i++){ while(!d.empty()&&a[d.back()]<=a[i]) d.pop_back(); d.push_back(i); if(d.front()<=i-k) d.pop_front(); if(i>=k-1){ int len=snprintf(buf,sizeof buf,"%s%lld", i==k-1?"":" ", a[d.front()]); out.append(buf,len);} }
puts(out.c_str());}
