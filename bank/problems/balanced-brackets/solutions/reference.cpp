#include <bits/stdc++.h>
using namespace std;
int main(){ios::sync_with_stdio(false);cin.tie(nullptr);int t;cin>>t;while(t--){string s;cin>>s;string st;bool ok=true;
for(char c:s){ if(c=='('||c=='['||c=='{') st.push_back(c); else { char o = c==')'?'(':(c==']'?'[':'{'); if(st.empty()||st.back()!=o){ok=false;break;} st.pop_back(); } }
if(!st.empty()) ok=false; cout<<(ok?"YES":"NO")<<"\n";}}
