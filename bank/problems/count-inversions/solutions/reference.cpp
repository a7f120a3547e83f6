#include <bits/stdc++.h>
using namespace std;
long long cnt=0; vector<long long> a,tmp;
void ms(int l,int r){ if(r-l<=1) return; int m=(l+r)/2; ms(l,m); ms(m,r); int i=l,j=m,k=l; while(i<m&&j<r){ if(a[j]<a[i]){cnt+=m-i; tmp[k++]=a[j++];} else tmp[k++]=a[i++]; } while(i<m) tmp[k++]=a[i++]; while(j<r) tmp[k++]=a[j++]; for(int t=l;t<r;t++) a[t]=tmp[t]; }
int main(){int n; scanf("%d",&n); a.resize(n); tmp.resize(n); for(auto&x:a) scanf("%lld",&x); ms(0,n); printf("%lld\n",cnt);}
