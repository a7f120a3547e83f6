#include <bits/stdc++.h>
using namespace std;
int main(){int n,s; scanf("%d %d",&n,&s); vector<long long> w(s+1,0); w[0]=1; const long long M=1000000007; for(int i=0;i<n;i++){int c; scanf("%d",&c); for(int v=c;v<=s;v++) w[v]=(w[v]+w[v-c])%M;} printf("%lld\n",w[s]);}
