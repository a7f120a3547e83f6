#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); vector<long long> a(n); for(auto&x:a) scanf("%lld",&x); sort(a.begin(),a.end()); printf("%d\n",(int)(unique(a.begin(),a.end())-a.begin()));}
