#include <bits/stdc++.h>
using namespace std;
int main(){long long n; scanf("%lld",&n); if(n<2){puts("0");return 0;} vector<char> s(n+1,1); s[0]=s[1]=0; for(long long p=2;p*p<=n;p++) if(s[p]) for(long long q=p*p;q<=n;q+=p) s[q]=0; long long c=0; for(long long i=0;i<=n;i++) c+=s[i]; printf("%lld\n",c);}
