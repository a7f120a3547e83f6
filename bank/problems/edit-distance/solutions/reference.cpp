#include <bits/stdc++.h>
using namespace std;
int main(){string a,b; cin>>a>>b; int n=a.size(),m=b.size(); vector<int> p(m+1),c(m+1); iota(p.begin(),p.end(),0);
for(int i=1;i<=n;i++){ c[0]=i; for(int j=1;j<=m;j++) c[j]=min({p[j]+1,c[j-1]+1,p[j-1]+(a[i-1]!=b[j-1])}); swap(p,c);} printf("%d\n",p[m]);}
