#include <bits/stdc++.h>
using namespace std;
vector<int> p,s; int f(int x){ while(p[x]!=x){ p[x]=p[p[x]]; x=p[x];} return x; }
int main(){int n,q; scanf("%d %d",&n,&q); p.resize(n+1); s.assign(n+1,1); iota(p.begin(),p.end(),0); string out; char op[4];
while(q--){int a,b; scanf("%3s %d %d",op,&a,&b); int ra=f(a),rb=f(b); if(op[0]=='U'){ if(ra!=rb){ if(s[ra]<s[rb]) swap(ra,rb); p[rb]=ra; s[ra]+=s[rb]; } } else out += (ra==rb) ? "YES\n" : "NO\n";} fputs(out.c_str(),stdout);}
