#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); vector<long long> a(n),r(n,-1); for(auto&x:a) scanf("%lld",&x); vector<int> st;
for(int i=0;i<n;i++){ while(!st.empty()&&a[st.back()]<a[i]){ r[st.back()]=a[i]; st.pop_back(); } st.push_back(i);} string out; char buf[32];
for(int i=0;i<n;i++){ int len=snprintf(buf,sizeof buf,"%s%lld",i?" ":"",r[i]); out.append(buf,len);} puts(out.c_str());}
