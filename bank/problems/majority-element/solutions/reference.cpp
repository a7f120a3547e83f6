#include <bits/stdc++.h>
using namespace std;
int main(){int n; scanf("%d",&n); long long cand=0; int votes=0; for(int i=0;i<n;i++){long long x; scanf("%lld",&x); if(votes==0) cand=x; votes += (x==cand)?1:-1;} printf("%lld\n",cand);}
