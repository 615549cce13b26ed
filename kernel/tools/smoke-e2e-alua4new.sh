NOSTOCK=1
. /alua4.sh
