#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); long long low=LLONG_MAX,best=0; for(int i=0;i<n;i++){long long p; scanf("%lld",&p); low=min(low,p); best=max(best,p-low);} printf("%lld\n",best);}
